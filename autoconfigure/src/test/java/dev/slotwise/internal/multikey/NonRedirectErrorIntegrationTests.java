package dev.slotwise.internal.multikey;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.slotwise.multikey.MultiKeyApiUsageException;
import dev.slotwise.multikey.MultiKeySystemException;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * An error reply that is no redirect ends the call at once naming it: a master out of
 * memory ({@code maxmemory} reached, {@code noeviction}) refuses the writes of a
 * cross-slot {@code multiSet} with {@code OOM}, and the caller sees that reply, not
 * "failed after N redirects".
 */
@WithRedisCluster
class NonRedirectErrorIntegrationTests {

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void outOfMemoryFailsTheCallNamingIt(String client, RedisTestCluster cluster) {
		RedisNode full = cluster.masters().get(0);
		MultiKeyTestSupport.runner(client, cluster).run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			Map<String, String> entries = new LinkedHashMap<>();
			for (int i = 0; i < 100; i++) {
				entries.put("oom:" + client + ":" + i, "v");
			}
			cluster.withAdmin(full, (jedis) -> jedis.configSet("maxmemory-policy", "noeviction"));
			cluster.withAdmin(full, (jedis) -> jedis.configSet("maxmemory", "1"));
			try {
				// Spring Data Redis translates a Jedis error reply to
				// InvalidDataAccessApiUsageException, a Lettuce one to
				// RedisSystemException; the same types arrive here.
				assertThatExceptionOfType(
						"jedis".equals(client) ? MultiKeyApiUsageException.class : MultiKeySystemException.class)
					.isThrownBy(() -> template.opsForValue().multiSet(entries))
					.withMessageContaining("OOM")
					.withMessageContaining(full.address())
					.withMessageNotContaining("redirects");
			}
			finally {
				cluster.withAdmin(full, (jedis) -> jedis.configSet("maxmemory", "0"));
			}
			assertThat(MigratingHashKeyIntegrationTests.errorCount(cluster, full, "OOM")).isPositive();
		});
	}

}
