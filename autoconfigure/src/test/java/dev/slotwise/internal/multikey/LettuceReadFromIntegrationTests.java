package dev.slotwise.internal.multikey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's reads over Lettuce follow {@code spring.data.redis.lettuce.read-from} as
 * Lettuce's own reads do, counted on the servers: the share of read commands
 * ({@code MGET} and {@code GET}) that replicas serve for 200 cross-slot
 * {@code multiGet(100)} calls, with Slotwise's engine on and off; writes stay on masters.
 */
@WithRedisCluster
class LettuceReadFromIntegrationTests {

	private static final int CALLS = 200;

	private static final int KEYS_PER_CALL = 100;

	@ParameterizedTest
	@ValueSource(strings = { "replica", "replicaPreferred", "anyReplica" })
	void replicaReadsGoToReplicasAsWithoutTheEngine(String readFrom, RedisTestCluster cluster) {
		double on = replicaShare(cluster, readFrom, true);
		double off = replicaShare(cluster, readFrom, false);
		assertThat(off).as("Spring Data Redis alone").isEqualTo(1.0);
		assertThat(on).as("with the engine").isEqualTo(off);
	}

	@Test
	void reactiveReadsGoToReplicasToo(RedisTestCluster cluster) {
		cluster.reset();
		List<RedisNode> masters = cluster.masters();
		List<RedisNode> replicas = cluster.replicas();
		runner(cluster, "replica", true).run((context) -> {
			assertThat(context).hasNotFailed();
			Map<String, String> values = new LinkedHashMap<>();
			for (int i = 0; i < 2000; i++) {
				values.put("rrf:" + i, "v" + i);
			}
			context.getBean(StringRedisTemplate.class).opsForValue().multiSet(values);
			awaitReplication(cluster, masters);
			cluster.resetStats();
			ReactiveStringRedisTemplate template = new ReactiveStringRedisTemplate(
					context.getBean(ReactiveRedisConnectionFactory.class));
			Random random = new Random(3);
			List<String> keyspace = List.copyOf(values.keySet());
			for (int call = 0; call < CALLS; call++) {
				List<String> keys = new ArrayList<>(KEYS_PER_CALL);
				for (int i = 0; i < KEYS_PER_CALL; i++) {
					keys.add(keyspace.get(random.nextInt(keyspace.size())));
				}
				assertThat(template.opsForValue().multiGet(keys).block(Duration.ofSeconds(10)))
					.isEqualTo(keys.stream().map(values::get).toList());
			}
			assertThat(reads(cluster, replicas)).isPositive();
			assertThat(reads(cluster, masters)).isZero();
		});
	}

	/**
	 * A client whose {@code ClientOptions.getReadOnlyCommands()} does not count
	 * {@code MGET} as a read sends its {@code MGET}s to masters whatever its
	 * {@code ReadFrom} says: Lettuce's own routing does, and so does the engine.
	 */
	@Test
	void commandsTheClientDoesNotCountAsReadsStayOnMasters(RedisTestCluster cluster) {
		double on = replicaShare(cluster, "replica", true, MgetIsNoRead.class);
		double off = replicaShare(cluster, "replica", false, MgetIsNoRead.class);
		assertThat(off).as("Spring Data Redis alone").isEqualTo(0.0);
		assertThat(on).as("with the engine").isEqualTo(off);
	}

	@Test
	void masterReadsStayOnMasters(RedisTestCluster cluster) {
		assertThat(replicaShare(cluster, "master", true)).isEqualTo(0.0);
	}

	@Test
	void anyNodeSpreadsReadsOverMastersAndReplicas(RedisTestCluster cluster) {
		// Random choice between a master and its replica for 600 node batches: both
		// shares are far from 0.
		assertThat(replicaShare(cluster, "any", true)).isBetween(0.2, 0.8);
	}

	@Test
	void lowestLatencyReadsReturnTheWrittenValues(RedisTestCluster cluster) {
		// Which node is fastest is the machine's business; that every value read is right
		// is checked inside.
		replicaShare(cluster, "lowestLatency", true);
	}

	@Test
	void writesStayOnMastersWhenReadsGoToReplicas(RedisTestCluster cluster) {
		cluster.reset();
		runner(cluster, "replica", true).run((context) -> {
			assertThat(context).hasNotFailed();
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			Map<String, String> tuples = new LinkedHashMap<>();
			for (int i = 0; i < 500; i++) {
				tuples.put("w:" + i, "v" + i);
			}
			template.opsForValue().multiSet(tuples);
			assertThat(template.delete(List.copyOf(tuples.keySet()))).isEqualTo(500);
			// Replicas count the MSETs and DELs they replicate; a write sent to a replica
			// would be refused there with MOVED, which the replica's errorstats would
			// count.
			for (RedisNode replica : cluster.replicas()) {
				String errors = cluster.withAdmin(replica, (jedis) -> jedis.info("errorstats"));
				assertThat(errors).as("replica %s", replica).doesNotContain("errorstat_MOVED");
			}
			long msets = 0;
			for (RedisNode master : cluster.masters()) {
				msets += cluster.commandCalls(master, "mset");
			}
			assertThat(msets).isPositive();
		});
	}

	/**
	 * Writes a keyspace, waits until the replicas hold it, runs the calls, checks every
	 * value, and returns the share of read commands the replicas executed.
	 */
	private double replicaShare(RedisTestCluster cluster, String readFrom, boolean engine, Class<?>... configurations) {
		cluster.reset();
		List<RedisNode> masters = cluster.masters();
		List<RedisNode> replicas = cluster.replicas();
		double[] share = new double[1];
		runner(cluster, readFrom, engine).withUserConfiguration(configurations).run((context) -> {
			assertThat(context).hasNotFailed();
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			Random random = new Random(readFrom.hashCode());
			List<String> keyspace = new ArrayList<>();
			Map<String, String> values = new LinkedHashMap<>();
			for (int i = 0; i < 2000; i++) {
				String key = "rf:" + i;
				keyspace.add(key);
				if (i % 4 != 0) {
					values.put(key, "v" + i);
				}
			}
			template.opsForValue().multiSet(values);
			awaitReplication(cluster, masters);
			cluster.resetStats();
			for (int call = 0; call < CALLS; call++) {
				List<String> keys = new ArrayList<>(KEYS_PER_CALL);
				for (int i = 0; i < KEYS_PER_CALL; i++) {
					keys.add(keyspace.get(random.nextInt(keyspace.size())));
				}
				List<String> expected = keys.stream().map(values::get).toList();
				assertThat(template.opsForValue().multiGet(keys)).as("call %d", call).isEqualTo(expected);
			}
			long onReplicas = reads(cluster, replicas);
			long onMasters = reads(cluster, masters);
			assertThat(onReplicas + onMasters).as("read commands counted on the servers").isPositive();
			share[0] = (double) onReplicas / (onReplicas + onMasters);
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
	 * Replication is asynchronous: poll until each replica's key count equals its
	 * master's, with a deadline.
	 */
	private static void awaitReplication(RedisTestCluster cluster, List<RedisNode> masters) {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		for (RedisNode replica : cluster.replicas()) {
			while (true) {
				String masterPort = cluster.withAdmin(replica, (jedis) -> jedis.info("replication"))
					.lines()
					.filter((line) -> line.startsWith("master_port:"))
					.findFirst()
					.orElseThrow()
					.substring("master_port:".length())
					.trim();
				RedisNode master = masters.stream()
					.filter((node) -> String.valueOf(node.port()).equals(masterPort))
					.findFirst()
					.orElseThrow();
				long expected = cluster.withAdmin(master, Jedis::dbSize);
				if (cluster.withAdmin(replica, Jedis::dbSize) == expected) {
					break;
				}
				assertThat(System.nanoTime()).as("replica %s caught up", replica).isLessThan(deadline);
				try {
					Thread.sleep(20);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			}
		}
	}

	private static ApplicationContextRunner runner(RedisTestCluster cluster, String readFrom, boolean engine) {
		return MultiKeyTestSupport.runner("lettuce", cluster)
			.withPropertyValues("spring.data.redis.lettuce.read-from=" + readFrom,
					"slotwise.multikey.enabled=" + engine);
	}

	@Configuration(proxyBeanMethods = false)
	static class MgetIsNoRead {

		@Bean
		LettuceClientOptionsBuilderCustomizer mgetIsNoRead() {
			return (builder) -> builder.readOnlyCommands((command) -> command.getType() != CommandType.MGET
					&& ClientOptions.DEFAULT_READ_ONLY_COMMANDS.isReadOnly(command));
		}

	}

}
