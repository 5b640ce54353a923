package dev.slotwise.internal.keyspace;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.core.Cursor;

/**
 * Contexts and data for the keyspace tests.
 */
final class KeyspaceTestSupport {

	static final String CLIENT_NAME = "slotwise-keyspace-test";

	private KeyspaceTestSupport() {
	}

	/**
	 * A context runner with Spring Boot's and Slotwise's auto-configuration against the
	 * cluster.
	 */
	static ApplicationContextRunner runner(String client, RedisTestCluster cluster) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(),
					"spring.data.redis.client-name=" + CLIENT_NAME, "spring.data.redis.timeout=5s");
	}

	/**
	 * Writes {@code count} string keys {@code prefix + i} through the engine's cross-slot
	 * mSet, 10,000 at a time.
	 * @return the keys written
	 */
	static Set<String> write(RedisClusterConnection connection, String prefix, int count) {
		Set<String> written = new HashSet<>(count * 2);
		Map<byte[], byte[]> batch = new LinkedHashMap<>();
		for (int i = 0; i < count; i++) {
			String key = prefix + i;
			written.add(key);
			batch.put(bytes(key), bytes("v"));
			if (batch.size() == 10_000 || i == count - 1) {
				connection.stringCommands().mSet(batch);
				batch.clear();
			}
		}
		return written;
	}

	/**
	 * Reads a cursor to its end (or to {@code limit} keys), counting duplicates.
	 */
	static Scanned drain(Cursor<byte[]> cursor) {
		Set<String> keys = new HashSet<>();
		long returned = 0;
		while (cursor.hasNext()) {
			keys.add(string(cursor.next()));
			returned++;
		}
		return new Scanned(keys, returned - keys.size());
	}

	static long commandCalls(RedisTestCluster cluster, List<RedisNode> nodes, String command) {
		long calls = 0;
		for (RedisNode node : nodes) {
			calls += cluster.commandCalls(node, command);
		}
		return calls;
	}

	/**
	 * Looks again until the condition holds or the timeout passes.
	 */
	static boolean eventually(java.time.Duration timeout, java.util.function.BooleanSupplier condition) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			if (condition.getAsBoolean()) {
				return true;
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}
		return condition.getAsBoolean();
	}

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	static String string(byte[] value) {
		return new String(value, StandardCharsets.UTF_8);
	}

	static String string(ByteBuffer value) {
		return StandardCharsets.UTF_8.decode(value.duplicate()).toString();
	}

	/**
	 * What a scan returned.
	 *
	 * @param keys the distinct keys
	 * @param duplicates how many keys came more than once
	 */
	record Scanned(Set<String> keys, long duplicates) {

		Set<String> missing(Set<String> expected) {
			Set<String> missing = new HashSet<>(expected);
			missing.removeAll(this.keys);
			return missing;
		}

	}

}
