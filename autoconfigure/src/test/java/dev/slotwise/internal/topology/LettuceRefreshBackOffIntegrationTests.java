package dev.slotwise.internal.topology;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lettuce refreshes that keep finding the topology unchanged space themselves out (issue
 * 19: in an outage every instance of a fleet asks for a refresh on every failed call), up
 * to the cache time-to-live, counted on the servers; plain Spring Boot beside it sends
 * every refresh it is asked for.
 */
@WithRedisCluster
class LettuceRefreshBackOffIntegrationTests {

	private static final Duration INTERVAL = Duration.ofMillis(250);

	private static final Duration LOAD = Duration.ofSeconds(4);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.client-type=lettuce", "slotwise.pool.prewarm=false",
				"slotwise.topology.periodic-refresh=0", "slotwise.topology.refresh-sources=1",
				"slotwise.topology.min-refresh-interval=" + INTERVAL.toMillis() + "ms");

	@Test
	void refreshesThatFindNothingNewWaitLongerEachTime(RedisTestCluster cluster) {
		// Paced only, 4 s of requests would start a refresh every 250 ms: 16. Backing off
		// (0.5, 1, 2 s after the refreshes at 0, 0.5, 1.5 s, then 3.5 s), four.
		long asked = refreshesUnderLoad(cluster, "slotwise.topology.cache-ttl=60s");
		assertThat(asked).as("CLUSTER NODES in %s of refresh requests", LOAD).isBetween(2L, 6L);
	}

	@Test
	void theWaitNeverExceedsTheCacheTimeToLive(RedisTestCluster cluster) {
		// With cache-ttl 1 s the waits are 0.5, 1, 1, 1 s: refreshes at 0, 0.5, 1.5, 2.5,
		// 3.5 s.
		long asked = refreshesUnderLoad(cluster, "slotwise.topology.cache-ttl=1s");
		assertThat(asked).as("CLUSTER NODES in %s of refresh requests", LOAD).isBetween(4L, 8L);
	}

	@Test
	void plainSpringBootSendsEveryRefreshItIsAskedFor(RedisTestCluster cluster) {
		// The same requests with slotwise.enabled=false, for a quarter of the time:
		// Lettuce refreshes every time.
		long asked = refreshesUnderLoad(cluster, "slotwise.enabled=false", LOAD.dividedBy(4));
		assertThat(asked).as("CLUSTER NODES in %s of refresh requests without Slotwise", LOAD.dividedBy(4))
			.isGreaterThan(24L);
	}

	private long refreshesUnderLoad(RedisTestCluster cluster, String setting) {
		return refreshesUnderLoad(cluster, setting, LOAD);
	}

	private long refreshesUnderLoad(RedisTestCluster cluster, String setting, Duration load) {
		long[] asked = new long[1];
		this.runner.withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), setting)
			.run((context) -> {
				LettuceConnectionFactory factory = context.getBean(LettuceConnectionFactory.class);
				assertThat(factory instanceof SlotwiseLettuceConnectionFactory)
					.isEqualTo(!setting.equals("slotwise.enabled=false"));
				factory.getClusterConnection().close();
				RedisClusterClient client = (RedisClusterClient) factory.getRequiredNativeClient();
				cluster.resetStats();
				long deadline = System.nanoTime() + load.toNanos();
				ExecutorService threads = Executors.newFixedThreadPool(4);
				for (int t = 0; t < 4; t++) {
					threads.execute(() -> {
						while (System.nanoTime() < deadline) {
							client.refreshPartitionsAsync().toCompletableFuture().join();
						}
					});
				}
				threads.shutdown();
				assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
				asked[0] = cluster.totalCommandCalls("cluster|nodes");
			});
		return asked[0];
	}

}
