package dev.slotwise.internal.multikey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code slotwise.multikey.read-from} sends the Jedis engine's cross-slot reads to
 * replicas, counted on the servers: the share of {@code MGET}s the replicas execute for
 * 200 cross-slot {@code multiGet(100)} calls, the {@code READONLY}s they receive (once
 * per connection), and the writes that reach them (none).
 */
@WithRedisCluster
@ExtendWith(OutputCaptureExtension.class)
class JedisReadFromIntegrationTests {

	private static final int CALLS = 200;

	private static final int KEYS_PER_CALL = 100;

	@Test
	void replicaSendsEveryReadToReplicas(RedisTestCluster cluster) {
		assertThat(replicaShare(cluster, "replica")).isEqualTo(1.0);
	}

	@Test
	void replicaPreferredSendsEveryReadToHealthyReplicas(RedisTestCluster cluster) {
		assertThat(replicaShare(cluster, "replica-preferred")).isEqualTo(1.0);
	}

	@Test
	void masterKeepsEveryReadOnMasters(RedisTestCluster cluster) {
		assertThat(replicaShare(cluster, "master")).isEqualTo(0.0);
		for (RedisNode node : cluster.nodes()) {
			assertThat(cluster.commandCalls(node, "readonly")).as("READONLY at %s", node).isZero();
		}
	}

	@Test
	void defaultKeepsEveryReadOnMasters(RedisTestCluster cluster) {
		assertThat(replicaShare(cluster, null)).isEqualTo(0.0);
	}

	@Test
	void replicasReceiveReadOnlyOncePerConnectionAndMastersNever(RedisTestCluster cluster) {
		replicaShare(cluster, "replica", (context) -> {
			// Concurrent callers make the engine borrow several connections per replica.
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			ExecutorService callers = Executors.newFixedThreadPool(4);
			try {
				List<Future<?>> calls = new ArrayList<>();
				for (int caller = 0; caller < 4; caller++) {
					int seed = caller;
					calls.add(callers.submit(() -> {
						Random random = new Random(seed);
						for (int call = 0; call < 50; call++) {
							List<String> keys = new ArrayList<>(KEYS_PER_CALL);
							for (int i = 0; i < KEYS_PER_CALL; i++) {
								keys.add("jrf:" + random.nextInt(2000));
							}
							assertThat(template.opsForValue().multiGet(keys)).hasSize(KEYS_PER_CALL);
						}
					}));
				}
				for (Future<?> call : calls) {
					call.get(60, TimeUnit.SECONDS);
				}
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
			finally {
				callers.shutdownNow();
			}
			readOnlyOncePerConnection(cluster);
		});
	}

	private static void readOnlyOncePerConnection(RedisTestCluster cluster) {
		for (RedisNode master : cluster.masters()) {
			assertThat(cluster.commandCalls(master, "readonly")).as("READONLY at master %s", master).isZero();
		}
		for (RedisNode replica : cluster.replicas()) {
			long readOnly = cluster.commandCalls(replica, "readonly");
			long reads = cluster.commandCalls(replica, "mget");
			// Each pooled connection gets READONLY before its first batch, never again:
			// far fewer than the batches.
			assertThat(readOnly).as("READONLY at replica %s", replica).isPositive();
			assertThat(readOnly).as("READONLY at replica %s, against its %d MGETs", replica, reads)
				.isLessThanOrEqualTo(cluster.countClients(replica, MultiKeyTestSupport.CLIENT_NAME))
				.isLessThan(reads / 10);
		}
	}

	@Test
	void replicaPoolsArePrewarmedWhenReadsGoToReplicas(RedisTestCluster cluster) {
		// Pre-warm covers every replica of Slotwise's topology, including those the
		// client's first slot table may leave out (a fresh cluster's gossip may not have
		// settled yet).
		cluster.resetStats();
		runner(cluster, "replica-preferred").run((context) -> {
			assertThat(context).hasNotFailed();
			for (RedisNode replica : cluster.replicas()) {
				assertThat(cluster.countClients(replica, MultiKeyTestSupport.CLIENT_NAME))
					.as("connections to replica %s after start-up (min-idle 4)", replica)
					.isGreaterThanOrEqualTo(4);
			}
		});
	}

	@Test
	void writesNeverReachReplicas(RedisTestCluster cluster) {
		cluster.reset();
		runner(cluster, "replica").run((context) -> {
			assertThat(context).hasNotFailed();
			assertReplicaPools(context, cluster);
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			Map<String, String> tuples = new LinkedHashMap<>();
			for (int i = 0; i < 500; i++) {
				tuples.put("w:" + i, "v" + i);
			}
			template.opsForValue().multiSet(tuples);
			awaitReplication(cluster);
			assertThat(template.opsForValue().multiGet(List.copyOf(tuples.keySet())))
				.containsExactlyElementsOf(tuples.values());
			assertThat(template.countExistingKeys(List.copyOf(tuples.keySet()))).isEqualTo(500);
			assertThat(template.delete(List.copyOf(tuples.keySet()).subList(0, 250))).isEqualTo(250);
			assertThat(template.unlink(List.copyOf(tuples.keySet()).subList(250, 500))).isEqualTo(250);
			awaitReplication(cluster);
			long masterWrites = 0;
			long replicaWrites = 0;
			for (RedisNode master : cluster.masters()) {
				masterWrites += writes(cluster, master);
			}
			for (RedisNode replica : cluster.replicas()) {
				// A write sent to a replica is refused there with MOVED (or READONLY),
				// which its errorstats would count; the writes it executes are those its
				// master replicates to it. (Its errorstats may count ERR for the CLIENT
				// SETINFO that Jedis sends to servers older than 7.2.)
				String errors = cluster.withAdmin(replica, (jedis) -> jedis.info("errorstats"));
				assertThat(errors).as("replica %s", replica)
					.doesNotContain("errorstat_MOVED")
					.doesNotContain("errorstat_READONLY");
				replicaWrites += writes(cluster, replica);
			}
			assertThat(masterWrites).isPositive();
			assertThat(replicaWrites).as("writes replicas executed, all replicated from masters")
				.isEqualTo(masterWrites);
			// The reads did go to replicas.
			long replicaReads = 0;
			for (RedisNode replica : cluster.replicas()) {
				replicaReads += cluster.commandCalls(replica, "mget") + cluster.commandCalls(replica, "exists");
			}
			assertThat(replicaReads).isPositive();
		});
	}

	@Test
	void lettuceIgnoresTheSettingWithAWarning(RedisTestCluster cluster, CapturedOutput output) {
		MultiKeyTestSupport.runner("lettuce", cluster)
			.withPropertyValues("slotwise.multikey.read-from=replica")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				template.opsForValue().multiSet(Map.of("l:1", "a", "l:2", "b", "l:3", "c"));
				assertThat(template.opsForValue().multiGet(List.of("l:1", "l:2", "l:3"))).containsExactly("a", "b",
						"c");
			});
		assertThat(output).contains("slotwise.multikey.read-from=replica is ignored: it applies to Jedis only")
			.contains("spring.data.redis.lettuce.read-from");
	}

	private static long writes(RedisTestCluster cluster, RedisNode node) {
		return cluster.commandCalls(node, "mset") + cluster.commandCalls(node, "del")
				+ cluster.commandCalls(node, "unlink") + cluster.commandCalls(node, "set");
	}

	/**
	 * Writes a keyspace, waits until the replicas hold it, runs the calls, checks every
	 * value, and returns the share of read commands the replicas executed.
	 */
	private static double replicaShare(RedisTestCluster cluster, String readFrom) {
		return replicaShare(cluster, readFrom, (context) -> {
		});
	}

	private static double replicaShare(RedisTestCluster cluster, String readFrom,
			Consumer<AssertableApplicationContext> andThen) {
		cluster.reset();
		double[] share = new double[1];
		runner(cluster, readFrom).run((context) -> {
			assertThat(context).hasNotFailed();
			assertReplicaPools(context, cluster);
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			Random random = new Random(String.valueOf(readFrom).hashCode());
			List<String> keyspace = new ArrayList<>();
			Map<String, String> values = new LinkedHashMap<>();
			for (int i = 0; i < 2000; i++) {
				String key = "jrf:" + i;
				keyspace.add(key);
				if (i % 4 != 0) {
					values.put(key, "v" + i);
				}
			}
			template.opsForValue().multiSet(values);
			awaitReplication(cluster);
			cluster.resetStats();
			for (int call = 0; call < CALLS; call++) {
				List<String> keys = new ArrayList<>(KEYS_PER_CALL);
				for (int i = 0; i < KEYS_PER_CALL; i++) {
					keys.add(keyspace.get(random.nextInt(keyspace.size())));
				}
				List<String> expected = keys.stream().map(values::get).toList();
				assertThat(template.opsForValue().multiGet(keys)).as("call %d", call).isEqualTo(expected);
			}
			long onReplicas = reads(cluster, cluster.replicas());
			long onMasters = reads(cluster, cluster.masters());
			assertThat(onReplicas + onMasters).as("read commands counted on the servers").isPositive();
			share[0] = (double) onReplicas / (onReplicas + onMasters);
			andThen.accept(context);
		});
		return share[0];
	}

	private static long reads(RedisTestCluster cluster, List<RedisNode> nodes) {
		long reads = 0;
		for (RedisNode node : nodes) {
			reads += cluster.commandCalls(node, "mget") + cluster.commandCalls(node, "get");
		}
		return reads;
	}

	/**
	 * Replication is asynchronous: wait until every replica acknowledged its master's
	 * whole stream.
	 */
	static void awaitReplication(RedisTestCluster cluster) {
		for (RedisNode master : cluster.masters()) {
			cluster.awaitReplicated(master, Duration.ofSeconds(30));
		}
	}

	/**
	 * Jedis creates a replica's pool when its slot table lists the replica, and a node
	 * that has not yet heard of every replica through gossip answers
	 * {@code CLUSTER SLOTS} without it; Slotwise sets up the pools of the replicas its
	 * topology lists at start-up (pre-warm), so the client holds one for every replica at
	 * once, without waiting for a renewal of Jedis's slot cache.
	 */
	static void assertReplicaPools(AssertableApplicationContext context, RedisTestCluster cluster) {
		SlotwiseJedisConnectionFactory factory = context.getBean(SlotwiseJedisConnectionFactory.class);
		assertThat(factory.getRequiredClusterClient().getClusterNodes().keySet())
			.as("the Jedis client's pools right after start-up")
			.containsAll(cluster.replicas().stream().map(RedisNode::address).toList());
	}

	static void await(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime()).as("waiting for %s", what).isLessThan(deadline);
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
	}

	static ApplicationContextRunner runner(RedisTestCluster cluster, String readFrom) {
		// Jedis's slot cache is left to its default renewal: replicas it does not list
		// yet get their pools from Slotwise's topology.
		ApplicationContextRunner runner = MultiKeyTestSupport.runner("jedis", cluster);
		return (readFrom != null) ? runner.withPropertyValues("slotwise.multikey.read-from=" + readFrom) : runner;
	}

}
