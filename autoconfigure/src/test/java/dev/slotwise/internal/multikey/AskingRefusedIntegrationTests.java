package dev.slotwise.internal.multikey;

import java.util.List;

import dev.slotwise.multikey.MultiKeyFailure;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * An application whose ACL user may not send {@code ASKING} (no {@code @connection}, or
 * {@code -asking}) reads a slot mid-migration across slots: the importing node refuses
 * the {@code ASKING} with {@code NOPERM} and then answers the command itself with
 * {@code MOVED} back to the source. The caller sees the {@code NOPERM}, on both clients,
 * instead of a {@code MOVED}/{@code ASK} loop reported as "failed after N redirects".
 */
@WithRedisCluster
class AskingRefusedIntegrationTests {

	private static final String USER = "slotwise-asking-refused";

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void refusedAskingFailsTheCallNamingNoperm(String client, RedisTestCluster cluster) {
		String tag = "{asking-refused-" + client + "}";
		SlotMigration migration = SlotMigration.of(cluster, tag);
		for (RedisNode node : cluster.nodes()) {
			// Everything but ASKING (which @connection holds), as a user granted "+@all
			// -@connection" plus what the clients need to connect would be.
			cluster.withAdmin(node,
					(jedis) -> jedis.aclSetUser(USER, "reset", "on", ">secret", "~*", "&*", "+@all", "-asking"));
		}
		try {
			MultiKeyTestSupport.runner(client, cluster)
				.withPropertyValues("spring.data.redis.username=" + USER, "spring.data.redis.password=secret")
				.run((context) -> {
					StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
					List<String> keys = List.of(tag + ":moved", tag + ":staying", "elsewhere:" + client);
					for (String key : keys) {
						template.opsForValue().set(key, "v");
					}
					migration.begin();
					try {
						migration.moveKeys(List.of(tag + ":moved"));
						cluster.resetStats();
						assertThatExceptionOfType(DataAccessException.class)
							.isThrownBy(() -> template.opsForValue().multiGet(keys))
							.isInstanceOf(MultiKeyFailure.class)
							.withMessageContaining("NOPERM")
							.withMessageContaining("asking")
							.withMessageNotContaining("redirects");
						assertThat(MigratingHashKeyIntegrationTests.errorCount(cluster, migration.target(), "NOPERM"))
							.as("the target refused ASKING")
							.isPositive();
						// No loop: the refused ASKING ends the call at once, so the
						// target answered no command of the slot with MOVED more than
						// once (zero over Jedis, which reads the refusal first).
						assertThat(MigratingHashKeyIntegrationTests.errorCount(cluster, migration.target(), "MOVED"))
							.isLessThanOrEqualTo(1);
					}
					finally {
						migration.moveAllKeys(0);
						migration.finish();
						migration.moveBack();
					}
				});
		}
		finally {
			for (RedisNode node : cluster.nodes()) {
				cluster.withAdmin(node, (jedis) -> jedis.aclDelUser(USER));
			}
		}
	}

}
