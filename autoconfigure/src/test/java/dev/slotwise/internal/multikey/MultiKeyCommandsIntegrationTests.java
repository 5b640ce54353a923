package dev.slotwise.internal.multikey;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import dev.slotwise.internal.routing.SlotHash;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What the server sees of a cross-slot call, argument handling, and large calls, on both
 * clients.
 */
@WithRedisCluster
class MultiKeyCommandsIntegrationTests {

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void mGetSendsOneMgetPerSlotAndNoGet(String client, RedisTestCluster cluster) {
		byte[][] keys = keys("k:", 1000);
		Set<Integer> slots = new HashSet<>();
		for (byte[] key : keys) {
			slots.add(SlotHash.slot(key));
		}
		withConnection(MultiKeyTestSupport.runner(client, cluster), (connection) -> {
			cluster.resetStats();
			connection.stringCommands().mGet(keys);
			assertThat(cluster.totalCommandCalls("mget")).isEqualTo(slots.size());
			assertThat(cluster.totalCommandCalls("get")).isZero();
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void mGetChunksSlotsLargerThanMaxKeysPerCommand(String client, RedisTestCluster cluster) {
		byte[][] keys = new byte[3 * 1200][];
		for (int i = 0; i < keys.length; i++) {
			keys[i] = ("{t" + (i % 3) + "}:" + i).getBytes(StandardCharsets.UTF_8);
		}
		withConnection(MultiKeyTestSupport.runner(client, cluster)
			.withPropertyValues("slotwise.multikey.max-keys-per-command=500"), (connection) -> {
				cluster.resetStats();
				assertThat(connection.stringCommands().mGet(keys)).hasSize(keys.length);
				// Three slots of 1,200 keys each: 500 + 500 + 200.
				assertThat(cluster.totalCommandCalls("mget")).isEqualTo(9);
			});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void sameSlotMGetIsOnePlainMget(String client, RedisTestCluster cluster) {
		withConnection(MultiKeyTestSupport.runner(client, cluster), (connection) -> {
			cluster.resetStats();
			connection.stringCommands().mGet(keys("{same}:", 50));
			assertThat(cluster.totalCommandCalls("mget")).isEqualTo(1);
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void mSetSendsOneMsetPerSlot(String client, RedisTestCluster cluster) {
		Map<byte[], byte[]> tuples = new LinkedHashMap<>();
		Set<Integer> slots = new HashSet<>();
		for (byte[] key : keys("w:", 500)) {
			tuples.put(key, key);
			slots.add(SlotHash.slot(key));
		}
		withConnection(MultiKeyTestSupport.runner(client, cluster), (connection) -> {
			cluster.resetStats();
			connection.stringCommands().mSet(tuples);
			// Masters only: replicas execute the replicated MSETs too.
			assertThat(cluster.masters().stream().mapToLong((master) -> cluster.commandCalls(master, "mset")).sum())
				.isEqualTo(slots.size());
			assertThat(cluster.totalCommandCalls("set")).isZero();
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void mGetOf100000KeysReturnsEveryValue(String client, RedisTestCluster cluster) {
		byte[][] keys = keys("big:", 100_000);
		Map<byte[], byte[]> tuples = new LinkedHashMap<>();
		for (byte[] key : keys) {
			tuples.put(key, key);
		}
		// What is checked is the values, not the speed: on a busy machine 100,000 keys
		// can take longer than the test kit's 2 s timeout.
		withConnection(
				MultiKeyTestSupport.runner(client, cluster)
					.withPropertyValues("spring.data.redis.timeout=30s", "slotwise.multikey.timeout=30s"),
				(connection) -> {
					connection.stringCommands().mSet(tuples);
					List<byte[]> values = connection.stringCommands().mGet(keys);
					assertThat(values).hasSize(keys.length);
					for (int i = 0; i < keys.length; i += 997) {
						assertThat(values.get(i)).isEqualTo(keys[i]);
					}
					assertThat(values).doesNotContainNull();
				});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void emptyKeysGiveEmptyResultWithoutNetwork(String client, RedisTestCluster cluster) {
		withConnection(MultiKeyTestSupport.runner(client, cluster), (connection) -> {
			cluster.resetStats();
			assertThat(connection.stringCommands().mGet(new byte[0][])).isEmpty();
			assertThat(connection.keyCommands().del(new byte[0][])).isZero();
			assertThat(connection.keyCommands().exists(new byte[0][])).isZero();
			assertThat(connection.stringCommands().mSet(Map.of())).isTrue();
			assertThat(cluster.totalCommandCalls("mget") + cluster.totalCommandCalls("del")
					+ cluster.totalCommandCalls("exists") + cluster.totalCommandCalls("mset"))
				.isZero();
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void nullKeysAreRejectedNamingTheArgument(String client, RedisTestCluster cluster) {
		withConnection(MultiKeyTestSupport.runner(client, cluster), (connection) -> {
			assertThatIllegalArgumentException().isThrownBy(() -> connection.stringCommands().mGet((byte[][]) null))
				.withMessageContaining("'keys'");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> connection.keyCommands().del(new byte[][] { "a".getBytes(), null }))
				.withMessageContaining("'keys'");
			assertThatIllegalArgumentException().isThrownBy(() -> connection.stringCommands().mSet(null))
				.withMessageContaining("'tuples'");
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void templateMultiGetRunsOnTheEngine(String client, RedisTestCluster cluster) {
		MultiKeyTestSupport.runner(client, cluster).run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			Map<String, String> values = new LinkedHashMap<>();
			for (int i = 0; i < 100; i++) {
				values.put("t:" + i, "v" + i);
			}
			template.opsForValue().multiSet(values);
			cluster.resetStats();
			List<String> keys = List.copyOf(values.keySet());
			assertThat(template.opsForValue().multiGet(keys)).containsExactlyElementsOf(values.values());
			assertThat(cluster.totalCommandCalls("get")).isZero();
			assertThat(template.delete(values.keySet())).isEqualTo(100);
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void disabledMultiKeyLeavesSpringDataRedisInPlace(String client, RedisTestCluster cluster) {
		withConnection(
				MultiKeyTestSupport.runner(client, cluster).withPropertyValues("slotwise.multikey.enabled=false"),
				(connection) -> {
					byte[][] keys = keys("d:", 100);
					cluster.resetStats();
					connection.stringCommands().mGet(keys);
					// Spring Data Redis: one GET per key over Jedis, one MGET per slot
					// over Lettuce.
					long commands = cluster.totalCommandCalls("get") + cluster.totalCommandCalls("mget");
					assertThat(commands).isGreaterThan(3);
				});
	}

	@org.junit.jupiter.api.Test
	void springDataRedisCrossSlotDelOverJedisCountsKeysSentNotRemoved(RedisTestCluster cluster) {
		// Documents the upstream behaviour Slotwise corrects: none of these keys exists,
		// yet Spring Data Redis reports every key as deleted. Slotwise's count is checked
		// by the differential tests.
		withConnection(
				MultiKeyTestSupport.runner("jedis", cluster).withPropertyValues("slotwise.multikey.enabled=false"),
				(connection) -> assertThat(connection.keyCommands().del(keys("absent:", 10))).isEqualTo(10));
	}

	@org.junit.jupiter.api.Test
	void saturatedJedisExecutorRunsBatchesOnCallersInsteadOfHanging(RedisTestCluster cluster) throws Exception {
		byte[][] keys = keys("sat:", 300);
		Map<byte[], byte[]> tuples = new LinkedHashMap<>();
		for (byte[] key : keys) {
			tuples.put(key, key);
		}
		withConnection(MultiKeyTestSupport.runner("jedis", cluster)
			.withPropertyValues("slotwise.multikey.jedis-executor.threads=1",
					"slotwise.multikey.jedis-executor.queue-capacity=1"),
				(connection) -> {
					connection.stringCommands().mSet(tuples);
					java.util.concurrent.ExecutorService callers = java.util.concurrent.Executors.newFixedThreadPool(8);
					try {
						List<java.util.concurrent.Future<List<byte[]>>> results = new java.util.ArrayList<>();
						for (int i = 0; i < 64; i++) {
							results.add(callers.submit(() -> connection.stringCommands().mGet(keys)));
						}
						for (java.util.concurrent.Future<List<byte[]>> result : results) {
							assertThat(result.get(30, java.util.concurrent.TimeUnit.SECONDS))
								.containsExactlyElementsOf(tuples.values());
						}
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
					finally {
						callers.shutdownNow();
					}
				});
	}

	static void withConnection(ApplicationContextRunner runner, Consumer<RedisClusterConnection> test) {
		runner.run((context) -> {
			assertThat(context).hasNotFailed();
			try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class)
				.getClusterConnection()) {
				test.accept(connection);
			}
		});
	}

	static byte[][] keys(String prefix, int count) {
		byte[][] keys = new byte[count][];
		for (int i = 0; i < count; i++) {
			keys[i] = (prefix + i).getBytes(StandardCharsets.UTF_8);
		}
		return keys;
	}

}
