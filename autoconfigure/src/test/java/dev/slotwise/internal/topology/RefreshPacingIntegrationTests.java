package dev.slotwise.internal.topology;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * However often the topology is invalidated or a refresh is asked for, a client starts at
 * most one refresh per {@code slotwise.topology.min-refresh-interval}, as
 * {@code INFO commandstats} on the servers counts it.
 */
@WithRedisCluster
class RefreshPacingIntegrationTests {

	private static final Duration INTERVAL = Duration.ofSeconds(1);

	/** Long enough for two interval boundaries, short enough that a third cannot fit. */
	private static final Duration LOAD = Duration.ofMillis(2500);

	private static final int THREADS = 8;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
		.withPropertyValues("slotwise.pool.prewarm=false", "slotwise.topology.cache-ttl=60s",
				"slotwise.topology.periodic-refresh=0",
				"slotwise.topology.min-refresh-interval=" + INTERVAL.toMillis() + "ms");

	@Test
	void jedisInvalidationsFromManyThreadsRefreshAtMostOncePerInterval(RedisTestCluster cluster) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=jedis",
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty())
			.run((context) -> {
				RefreshableTopologyProvider provider = (RefreshableTopologyProvider) context
					.getBean(SlotwiseJedisConnectionFactory.class)
					.getRequiredTopologyProvider();
				cluster.resetStats();
				long lookups = hammer(() -> {
					provider.invalidate();
					assertThat(provider.getTopology().getNodes()).isNotEmpty();
				});
				long refreshes = cluster.totalCommandCalls("cluster|nodes");
				// At 0 s, 1 s and 2 s at most: three starts fit in 2.5 s, four cannot.
				assertThat(refreshes).as("CLUSTER NODES for %d invalidated lookups", lookups).isBetween(2L, 3L);
			});
	}

	@Test
	void lettuceRefreshRequestsFromManyThreadsRefreshAtMostOncePerInterval(RedisTestCluster cluster) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=lettuce",
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "slotwise.topology.refresh-sources=3")
			.run((context) -> {
				SlotwiseLettuceConnectionFactory factory = context.getBean(SlotwiseLettuceConnectionFactory.class);
				factory.getClusterConnection().close();
				RedisClusterClient client = (RedisClusterClient) factory.getRequiredNativeClient();
				cluster.resetStats();
				long requests = hammer(() -> client.refreshPartitionsAsync().toCompletableFuture().join());
				long asked = cluster.totalCommandCalls("cluster|nodes");
				// Each refresh asks refresh-sources = 3 nodes; at most three refreshes
				// start in 2.5 s.
				assertThat(asked).as("CLUSTER NODES for %d refresh requests", requests).isBetween(6L, 9L);
			});
	}

	/**
	 * Runs the action in a loop on {@value #THREADS} threads for {@link #LOAD}; returns
	 * how often it ran.
	 */
	private static long hammer(Runnable action) throws InterruptedException {
		AtomicLong runs = new AtomicLong();
		long deadline = System.nanoTime() + LOAD.toNanos();
		ExecutorService threads = Executors.newFixedThreadPool(THREADS);
		for (int t = 0; t < THREADS; t++) {
			threads.execute(() -> {
				while (System.nanoTime() < deadline) {
					action.run();
					runs.incrementAndGet();
				}
			});
		}
		threads.shutdown();
		assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
		return runs.get();
	}

}
