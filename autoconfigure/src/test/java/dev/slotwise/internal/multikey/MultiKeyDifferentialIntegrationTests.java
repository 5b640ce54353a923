package dev.slotwise.internal.multikey;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.BiFunction;

import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Randomized differential tests on both clients: the engine's results equal a per-key
 * loop's on the same data (hash tags, binary keys, duplicates, missing keys, mixed value
 * sizes, 0 to 2,000 keys per call).
 */
@WithRedisCluster
class MultiKeyDifferentialIntegrationTests {

	private static final int KEYSPACE = 3000;

	private static final int ITERATIONS = 40;

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void mGetEqualsPerKeyGets(String client, RedisTestCluster cluster) {
		withConnection(client, cluster, (connection, random) -> {
			byte[][] keyspace = MultiKeyTestSupport.keyspace(random, KEYSPACE);
			MultiKeyTestSupport.populate(connection, random, keyspace);
			for (int i = 0; i < ITERATIONS; i++) {
				byte[][] keys = MultiKeyTestSupport.pick(random, keyspace, size(random, i));
				List<byte[]> expected = MultiKeyTestSupport.getEach(connection, keys);
				assertThat(connection.stringCommands().mGet(keys)).as("iteration %d, %d keys", i, keys.length)
					.containsExactlyElementsOf(expected);
			}
			return null;
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void mSetWritesWhatPerKeyGetsRead(String client, RedisTestCluster cluster) {
		withConnection(client, cluster, (connection, random) -> {
			byte[][] keyspace = MultiKeyTestSupport.keyspace(random, KEYSPACE);
			for (int i = 0; i < ITERATIONS / 2; i++) {
				Map<byte[], byte[]> tuples = new LinkedHashMap<>();
				for (byte[] key : MultiKeyTestSupport.pick(random, keyspace, size(random, i))) {
					tuples.put(key, MultiKeyTestSupport.value(random));
				}
				assertThat(connection.stringCommands().mSet(tuples)).isTrue();
				byte[][] keys = tuples.keySet().toArray(new byte[0][]);
				assertThat(MultiKeyTestSupport.getEach(connection, keys)).as("iteration %d", i)
					.containsExactlyElementsOf(tuples.values());
			}
			return null;
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void existsCountsEveryRepetitionOfAnExistingKey(String client, RedisTestCluster cluster) {
		withConnection(client, cluster, (connection, random) -> {
			byte[][] keyspace = MultiKeyTestSupport.keyspace(random, KEYSPACE);
			Map<ByteBuffer, byte[]> written = MultiKeyTestSupport.populate(connection, random, keyspace);
			for (int i = 0; i < ITERATIONS; i++) {
				byte[][] keys = MultiKeyTestSupport.pick(random, keyspace, size(random, i));
				long expected = 0;
				for (byte[] key : keys) {
					expected += written.containsKey(ByteBuffer.wrap(key)) ? 1 : 0;
				}
				assertThat(connection.keyCommands().exists(keys)).as("iteration %d", i).isEqualTo(expected);
			}
			return null;
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void delCountsKeysActuallyRemoved(String client, RedisTestCluster cluster) {
		assertRemovesAndCounts(client, cluster, (connection, keys) -> connection.keyCommands().del(keys));
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void unlinkCountsKeysActuallyRemoved(String client, RedisTestCluster cluster) {
		assertRemovesAndCounts(client, cluster, (connection, keys) -> connection.keyCommands().unlink(keys));
	}

	private void assertRemovesAndCounts(String client, RedisTestCluster cluster,
			BiFunction<RedisClusterConnection, byte[][], Long> remove) {
		withConnection(client, cluster, (connection, random) -> {
			byte[][] keyspace = MultiKeyTestSupport.keyspace(random, KEYSPACE);
			Map<ByteBuffer, byte[]> written = MultiKeyTestSupport.populate(connection, random, keyspace);
			for (int i = 0; i < ITERATIONS / 2; i++) {
				byte[][] keys = MultiKeyTestSupport.pick(random, keyspace, size(random, i));
				Set<ByteBuffer> removed = new HashSet<>();
				for (byte[] key : keys) {
					if (written.remove(ByteBuffer.wrap(key)) != null) {
						removed.add(ByteBuffer.wrap(key));
					}
				}
				assertThat(remove.apply(connection, keys)).as("iteration %d", i).isEqualTo(removed.size());
				assertThat(MultiKeyTestSupport.getEach(connection, keys)).allMatch((value) -> value == null);
			}
			return null;
		});
	}

	/**
	 * Sizes from 0 to 2,000, with the small sizes (where fixed costs show) well
	 * represented.
	 */
	private static int size(Random random, int iteration) {
		return switch (iteration % 4) {
			case 0 -> random.nextInt(10);
			case 1 -> random.nextInt(100);
			case 2 -> random.nextInt(1000);
			default -> 1000 + random.nextInt(1001);
		};
	}

	private void withConnection(String client, RedisTestCluster cluster,
			BiFunction<RedisClusterConnection, Random, Void> test) {
		MultiKeyTestSupport.runner(client, cluster).run((context) -> {
			assertThat(context).hasNotFailed();
			try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class)
				.getClusterConnection()) {
				test.apply(connection, new Random(client.hashCode()));
			}
		});
	}

}
