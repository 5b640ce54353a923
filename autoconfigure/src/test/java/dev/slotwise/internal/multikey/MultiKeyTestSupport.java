package dev.slotwise.internal.multikey;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BooleanSupplier;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisClusterConnection;

/**
 * Contexts and data for the multi-key tests.
 */
public final class MultiKeyTestSupport {

	public static final String CLIENT_NAME = "slotwise-multikey-test";

	private MultiKeyTestSupport() {
	}

	/**
	 * A context runner with Spring Boot's and Slotwise's auto-configuration against the
	 * cluster.
	 */
	public static ApplicationContextRunner runner(String client, RedisTestCluster cluster) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(),
					"spring.data.redis.client-name=" + CLIENT_NAME, "spring.data.redis.timeout=2s");
	}

	/**
	 * Random keys: plain, hash-tagged (many per slot) and binary (with brace and zero
	 * bytes), all distinct.
	 */
	public static byte[][] keyspace(Random random, int count) {
		byte[][] keys = new byte[count][];
		for (int i = 0; i < count; i++) {
			int kind = random.nextInt(10);
			if (kind < 4) {
				keys[i] = ("k:" + i).getBytes(StandardCharsets.UTF_8);
			}
			else if (kind < 7) {
				keys[i] = ("{tag" + random.nextInt(20) + "}:" + i).getBytes(StandardCharsets.UTF_8);
			}
			else {
				byte[] prefix = new byte[1 + random.nextInt(12)];
				random.nextBytes(prefix);
				if (random.nextBoolean()) {
					prefix[random.nextInt(prefix.length)] = '{';
					prefix[random.nextInt(prefix.length)] = '}';
				}
				keys[i] = ByteBuffer.allocate(prefix.length + 4).put(prefix).putInt(i).array();
			}
		}
		return keys;
	}

	/**
	 * A value of mixed size: mostly small, some up to 4 KB, rarely up to 64 KB, sometimes
	 * empty.
	 */
	public static byte[] value(Random random) {
		int roll = random.nextInt(100);
		int size = (roll < 5) ? 0 : (roll < 65) ? random.nextInt(32) : (roll < 95) ? 100 + random.nextInt(900)
				: (roll < 99) ? 1024 + random.nextInt(3072) : 16_384 + random.nextInt(49_152);
		byte[] value = new byte[size];
		random.nextBytes(value);
		return value;
	}

	/**
	 * Picks keys with replacement (so duplicates occur) from the keyspace.
	 */
	public static byte[][] pick(Random random, byte[][] keyspace, int count) {
		byte[][] keys = new byte[count][];
		for (int i = 0; i < count; i++) {
			keys[i] = keyspace[random.nextInt(keyspace.length)];
		}
		return keys;
	}

	/**
	 * Writes about 70% of the keyspace with per-key SETs and returns what was written.
	 */
	public static Map<ByteBuffer, byte[]> populate(RedisClusterConnection connection, Random random,
			byte[][] keyspace) {
		Map<ByteBuffer, byte[]> written = new LinkedHashMap<>();
		for (byte[] key : keyspace) {
			if (random.nextInt(10) < 7) {
				byte[] value = value(random);
				connection.stringCommands().set(key, value);
				written.put(ByteBuffer.wrap(key), value);
			}
		}
		return written;
	}

	/**
	 * The baseline: one GET per key.
	 */
	public static List<byte[]> getEach(RedisClusterConnection connection, byte[][] keys) {
		List<byte[]> values = new ArrayList<>(keys.length);
		for (byte[] key : keys) {
			values.add(connection.stringCommands().get(key));
		}
		return values;
	}

	/**
	 * Counts the connections of the application under test on every node.
	 */
	public static long applicationConnections(RedisTestCluster cluster) {
		long connections = 0;
		for (RedisNode node : cluster.nodes()) {
			connections += cluster.countClients(node, MultiKeyTestSupport.CLIENT_NAME);
		}
		return connections;
	}

	/**
	 * Servers drop closed connections asynchronously: look again for up to 5 seconds.
	 */
	public static boolean eventually(BooleanSupplier condition) {
		return eventually(Duration.ofSeconds(5), condition);
	}

	/**
	 * Looks again for up to the given time whether a condition holds.
	 */
	public static boolean eventually(Duration within, BooleanSupplier condition) {
		long deadline = System.nanoTime() + within.toNanos();
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

}
