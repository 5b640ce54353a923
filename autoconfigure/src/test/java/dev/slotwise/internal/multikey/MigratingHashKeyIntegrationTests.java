package dev.slotwise.internal.multikey;

import java.util.ArrayList;
import java.util.List;

import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cross-slot {@code multiGet} that includes hash keys of a slot whose keys are split
 * between the migrating source and the importing target: the source refuses the slot's
 * {@code MGET} with {@code TRYAGAIN} and the engine asks key by key. Each key is asked
 * with a one-key {@code MGET}, which answers nil for a hash as the whole {@code MGET}
 * would; a {@code GET} would fail the call with {@code WRONGTYPE}.
 */
@WithRedisCluster
class MigratingHashKeyIntegrationTests {

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void hashKeysOfAHalfMigratedSlotReadAsNull(String client, RedisTestCluster cluster) {
		String tag = "{hash-mid-move-" + client + "}";
		SlotMigration migration = SlotMigration.of(cluster, tag);
		List<String> keys = List.of(tag + ":moved-string", tag + ":moved-hash", tag + ":staying-hash",
				tag + ":staying-string", "elsewhere:" + client + ":1", "elsewhere:" + client + ":2");
		MultiKeyTestSupport.runner(client, cluster).run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			for (String key : keys) {
				if (key.endsWith("-hash")) {
					template.opsForHash().put(key, "field", "value");
				}
				else {
					template.opsForValue().set(key, "v-" + key);
				}
			}
			migration.begin();
			try {
				migration.moveKeys(List.of(tag + ":moved-string", tag + ":moved-hash"));
				cluster.resetStats();
				List<String> values = template.opsForValue().multiGet(keys);
				List<String> expected = new ArrayList<>();
				for (String key : keys) {
					expected.add(key.endsWith("-hash") ? null : "v-" + key);
				}
				assertThat(values).isEqualTo(expected);
				// The call really met the split: the source refused the slot's MGET, and
				// the moved keys were asked for at the target after ASKING; no node
				// answered WRONGTYPE.
				assertThat(errorCount(cluster, migration.source(), "TRYAGAIN")).isPositive();
				assertThat(cluster.commandCalls(migration.target(), "asking")).isPositive();
				assertThat(cluster.totalCommandCalls("get")).isZero();
				for (var node : cluster.nodes()) {
					assertThat(errorCount(cluster, node, "WRONGTYPE")).as("WRONGTYPE on %s", node).isZero();
				}
			}
			finally {
				migration.moveAllKeys(0);
				migration.finish();
				migration.moveBack();
			}
		});
	}

	static long errorCount(RedisTestCluster cluster, dev.slotwise.test.cluster.RedisNode node, String error) {
		String prefix = "errorstat_" + error + ":count=";
		return cluster.withAdmin(node, (jedis) -> jedis.info("errorstats"))
			.lines()
			.filter((line) -> line.startsWith(prefix))
			.mapToLong((line) -> Long.parseLong(line.substring(prefix.length()).trim()))
			.sum();
	}

}
