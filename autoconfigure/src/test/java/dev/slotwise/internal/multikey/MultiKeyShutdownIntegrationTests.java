package dev.slotwise.internal.multikey;

import java.time.Duration;

import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * After the application context closes, no multi-key thread and no application connection
 * remains.
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
			assertThat(MultiKeyTestSupport.applicationConnections(cluster)).isPositive();
		});
		// The JVM's one deadline timer (asynchronous calls, also of earlier tests in this
		// JVM) ends 10 s after the last deadline it held; the executor's threads end with
		// the context.
		assertThat(MultiKeyTestSupport.eventually(Duration.ofSeconds(15), () -> multiKeyThreads() == 0))
			.as("multi-key threads gone")
			.isTrue();
		assertThat(MultiKeyTestSupport.eventually(() -> MultiKeyTestSupport.applicationConnections(cluster) == 0))
			.as("application connections gone")
			.isTrue();
	}

	private static long multiKeyThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.isAlive() && thread.getName().startsWith("slotwise-multikey-"))
			.count();
	}

}
