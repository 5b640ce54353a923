package dev.slotwise.multikey;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * After the application context closes, no multi-key thread and no application connection remains.
 */
@WithRedisCluster
class MultiKeyShutdownIntegrationTests {

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void closingTheContextReleasesThreadsAndConnections(String client, RedisTestCluster cluster) {
		MultiKeyTestSupport.runner(client, cluster).run((context) -> {
			try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class)
				.getClusterConnection()) {
				connection.stringCommands().mGet(MultiKeyCommandsIntegrationTests.keys("s:", 200));
			}
			assertThat(applicationConnections(cluster)).isPositive();
		});
		assertThat(eventually(() -> multiKeyThreads() == 0)).as("multi-key threads gone").isTrue();
		assertThat(eventually(() -> applicationConnections(cluster) == 0)).as("application connections gone").isTrue();
	}

	private static long applicationConnections(RedisTestCluster cluster) {
		long connections = 0;
		for (RedisNode node : cluster.nodes()) {
			connections += cluster.countClients(node, MultiKeyTestSupport.CLIENT_NAME);
		}
		return connections;
	}

	private static long multiKeyThreads() {
		return Thread.getAllStackTraces().keySet().stream()
			.filter((thread) -> thread.isAlive() && thread.getName().startsWith("slotwise-multikey-"))
			.count();
	}

	/**
	 * Servers drop closed connections asynchronously: look again for up to 5 seconds.
	 */
	private static boolean eventually(BooleanSupplier condition) {
		long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
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
