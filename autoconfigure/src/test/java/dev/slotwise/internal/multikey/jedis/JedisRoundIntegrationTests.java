package dev.slotwise.internal.multikey.jedis;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import dev.slotwise.internal.multikey.MultiKeyTestSupport;
import dev.slotwise.multikey.MultiKeyTimeoutException;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The Jedis engine's rounds ({@link JedisRound}): the calling thread writes every small
 * node batch before it reads any reply, larger batches go to the executor, and a round
 * that fails gives its sound connections back to their pools. Counted on the servers
 * ({@code INFO commandstats}, {@code CLIENT LIST}) and in the JVM's threads, with plain
 * Spring Boot beside it.
 */
@WithRedisCluster
class JedisRoundIntegrationTests {

	private static final int KEYS = 60;

	@Test
	void smallBatchesAreSentByTheCallerAndLargeOnesOnTheExecutorWithTheSameCommandsOnTheServers(
			RedisTestCluster cluster) {
		List<String> keys = keys("round:", KEYS);
		Map<String, String> small = values(keys, 8);
		// 300 keys of 1 KiB: about 100 KiB per master, over the 32 KiB a caller writes
		// itself.
		List<String> bigKeys = keys("round-big:", 300);
		Map<String, String> big = values(bigKeys, 1024);
		MultiKeyTestSupport.runner("jedis", cluster).run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			MultiKeyExecutor executor = context.getBean(MultiKeyExecutor.class);
			template.opsForValue().multiSet(small);
			cluster.resetStats();
			for (int i = 0; i < 20; i++) {
				assertThat(template.opsForValue().multiGet(keys)).containsExactlyElementsOf(small.values());
			}
			assertThat(executor.threadPool().getLargestPoolSize()).as("executor threads after small calls").isZero();
			// One MGET per slot and call, as on the executor: the round changes who
			// writes, not what is sent.
			assertThat(cluster.totalCommandCalls("mget")).isEqualTo(20L * slots(cluster, keys));
			template.opsForValue().multiSet(big);
			assertThat(template.opsForValue().multiGet(bigKeys)).containsExactlyElementsOf(big.values());
			assertThat(executor.threadPool().getLargestPoolSize()).as("executor threads after large calls")
				.isPositive();
		});
		// inline-batch-size=0: every batch on the executor, the same values.
		MultiKeyTestSupport.runner("jedis", cluster)
			.withPropertyValues("slotwise.multikey.jedis-executor.inline-batch-size=0")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				assertThat(template.opsForValue().multiGet(keys)).containsExactlyElementsOf(small.values());
				assertThat(context.getBean(MultiKeyExecutor.class).threadPool().getLargestPoolSize()).isPositive();
			});
		// Plain Spring Boot: the same values; Spring Data runs a cross-slot multiGet on
		// threads of its own.
		MultiKeyTestSupport.runner("jedis", cluster).withPropertyValues("slotwise.enabled=false").run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			long started = startedThreads();
			assertThat(template.opsForValue().multiGet(keys)).containsExactlyElementsOf(small.values());
			assertThat(startedThreads() - started).as("threads plain Boot started for one call").isPositive();
		});
	}

	@Test
	void aRoundThatTimesOutOnOneNodeGivesTheOtherNodesConnectionsBackToTheirPools(RedisTestCluster cluster) {
		List<String> keys = keys("round-pause:", KEYS);
		Map<String, String> values = values(keys, 8);
		MultiKeyTestSupport.runner("jedis", cluster)
			.withPropertyValues("slotwise.multikey.timeout=300ms", "spring.data.redis.timeout=5s")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				template.opsForValue().multiSet(values);
				assertThat(template.opsForValue().multiGet(keys)).containsExactlyElementsOf(values.values());
				// The round reads its batches in the order of the nodes' ports: pause the
				// first, so that the others' replies are still unread when its read times
				// out.
				List<RedisNode> masters = new ArrayList<>(cluster.masters());
				masters.sort(Comparator.comparingInt(RedisNode::port));
				RedisNode paused = masters.get(0);
				List<RedisNode> others = masters.subList(1, masters.size());
				Map<RedisNode, Set<String>> connectionsBefore = connections(cluster, others);
				long pausedAt = System.nanoTime();
				cluster.withAdmin(paused, (jedis) -> jedis.clientPause(1500));
				try {
					assertThatExceptionOfType(MultiKeyTimeoutException.class)
						.isThrownBy(() -> template.opsForValue().multiGet(keys))
						.satisfies((ex) -> assertThat(ex.getNodes()).contains(paused.host() + ":" + paused.port()));
				}
				finally {
					// A destroyed connection is replaced on the releaser's thread, behind
					// the paused node's, which waits for the pause to end: count once
					// that is done.
					long left = 1900 - (System.nanoTime() - pausedAt) / 1_000_000;
					if (left > 0) {
						Thread.sleep(left);
					}
				}
				// Same connections on the other masters: their batches' replies were
				// read, and the connections went back to their pools instead of being
				// destroyed and replaced.
				assertThat(connections(cluster, others)).isEqualTo(connectionsBefore);
				assertThat(template.opsForValue().multiGet(keys)).containsExactlyElementsOf(values.values());
			});
	}

	private static Map<RedisNode, Set<String>> connections(RedisTestCluster cluster, List<RedisNode> nodes) {
		Map<RedisNode, Set<String>> ids = new LinkedHashMap<>();
		for (RedisNode node : nodes) {
			ids.put(node,
					cluster.clients(node)
						.stream()
						.filter((client) -> MultiKeyTestSupport.CLIENT_NAME.equals(client.get("name")))
						.map((client) -> client.get("id"))
						.collect(Collectors.toCollection(TreeSet::new)));
			assertThat(ids.get(node)).as("application connections on %s", node).isNotEmpty();
		}
		return ids;
	}

	private static long slots(RedisTestCluster cluster, List<String> keys) {
		return keys.stream().map((key) -> cluster.keySlot(key.getBytes())).distinct().count();
	}

	private static long startedThreads() {
		return ManagementFactory.getThreadMXBean().getTotalStartedThreadCount();
	}

	private static List<String> keys(String prefix, int count) {
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			keys.add(prefix + i);
		}
		return keys;
	}

	private static Map<String, String> values(List<String> keys, int size) {
		Map<String, String> values = new LinkedHashMap<>();
		for (String key : keys) {
			values.put(key, (key + "=").repeat(size).substring(0, size));
		}
		return values;
	}

}
