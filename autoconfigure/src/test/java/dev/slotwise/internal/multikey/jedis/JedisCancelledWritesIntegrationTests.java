package dev.slotwise.internal.multikey.jedis;

import dev.slotwise.internal.multikey.MultiKeyTestSupport;
import dev.slotwise.multikey.MultiKeyApiUsageException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A failed cross-slot {@code mSet} over Jedis stops writing: the other nodes' batches,
 * written one window at a time, stop at their next window boundary, so that at most the
 * window each was writing lands after the caller got the
 * {@link MultiKeyApiUsageException}. One master refuses writes at once ({@code OOM},
 * {@code maxmemory 1}) while the two others each have thousands of one-key windows to go;
 * the keys counted on the servers tell what was written.
 */
@WithRedisCluster
class JedisCancelledWritesIntegrationTests {

	private static final int KEYS_PER_HEALTHY_MASTER = 3000;

	@Test
	void aFailedMSetWritesNoWindowAfterTheFailure(RedisTestCluster cluster) {
		RedisNode refusing = cluster.masters().get(0);
		Map<RedisNode, String> tags = tagPerMaster(cluster);
		Map<String, String> values = new LinkedHashMap<>();
		values.put(tags.get(refusing) + ":0", "v");
		for (RedisNode master : cluster.masters()) {
			if (!master.equals(refusing)) {
				for (int i = 0; i < KEYS_PER_HEALTHY_MASTER; i++) {
					values.put(tags.get(master) + ":" + i, "v");
				}
			}
		}
		int healthyKeys = values.size() - 1;
		// One key per command and one command per window: each healthy batch is thousands
		// of windows.
		MultiKeyTestSupport.runner("jedis", cluster)
			.withPropertyValues("slotwise.multikey.max-keys-per-command=1",
					"slotwise.multikey.max-commands-per-pipeline=1", "slotwise.multikey.timeout=30s",
					"spring.data.redis.timeout=30s")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				MultiKeyExecutor executor = context.getBean(MultiKeyExecutor.class);
				cluster.withAdmin(refusing, (jedis) -> jedis.configSet("maxmemory", "1"));
				try {
					assertThatExceptionOfType(MultiKeyApiUsageException.class)
						.isThrownBy(() -> template.opsForValue().multiSet(values))
						.withMessageContaining("OOM");
					long atFailure = keysOnHealthyMasters(cluster, refusing);
					assertThat(MultiKeyTestSupport
						.eventually(() -> executor.activeCount() == 0 && executor.queueSize() == 0)).as("batches ended")
						.isTrue();
					long settled = keysOnHealthyMasters(cluster, refusing);
					long msets = cluster.masters()
						.stream()
						.filter((master) -> !master.equals(refusing))
						.mapToLong((master) -> cluster.commandCalls(master, "mset"))
						.sum();
					System.out.printf(
							"cancelled writes: %d of %d keys of the healthy masters written (%d MSETs), %d"
									+ " of them after the caller saw the failure%n",
							settled, healthyKeys, msets, settled - atFailure);
					assertThat(settled - atFailure)
						.as("keys written after the caller saw the failure (one window"
								+ " of one key per healthy master at most)")
						.isLessThanOrEqualTo(2);
					assertThat(settled).as("keys of later windows written").isLessThan(healthyKeys / 2);
					assertThat(msets).as("MSETs the healthy masters ran").isEqualTo(settled);
				}
				finally {
					cluster.withAdmin(refusing, (jedis) -> jedis.configSet("maxmemory", "0"));
				}
			});
	}

	private static long keysOnHealthyMasters(RedisTestCluster cluster, RedisNode refusing) {
		return cluster.masters()
			.stream()
			.filter((master) -> !master.equals(refusing))
			.mapToLong((master) -> cluster.withAdmin(master, Jedis::dbSize))
			.sum();
	}

	/** A hash tag per master: all keys tagged with it live on that master. */
	private static Map<RedisNode, String> tagPerMaster(RedisTestCluster cluster) {
		Map<RedisNode, String> tags = new LinkedHashMap<>();
		for (int i = 0; tags.size() < cluster.masters().size(); i++) {
			String tag = "{c" + i + "}";
			tags.putIfAbsent(cluster.masterServing(tag), tag);
		}
		return tags;
	}

}
