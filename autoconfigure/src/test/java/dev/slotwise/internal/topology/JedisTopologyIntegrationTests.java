package dev.slotwise.internal.topology;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Slotwise's Jedis topology provider against a real cluster, counted by the servers
 * ({@code INFO commandstats}).
 */
@WithRedisCluster
class JedisTopologyIntegrationTests {

	private static final String CLUSTER_NODES = "cluster|nodes";

	private static final int THREADS = 32;

	private static final int LOOKUPS = 20_000;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.client-type=jedis", "slotwise.pool.prewarm=false",
				// These tests count refreshes forced by invalidate(); pacing is tested in
				// RefreshPacingIntegrationTests.
				"slotwise.topology.min-refresh-interval=0");

	@Test
	void providerIsSlotwisesRefreshableProvider(RedisTestCluster cluster) {
		withProvider(cluster, (provider) -> assertThat(provider).isInstanceOf(RandomizedJedisTopologyProvider.class),
				"slotwise.topology.cache-ttl=5s");
	}

	@Test
	void lookupsFromManyThreadsWithinOneTtlSendOneClusterNodes(RedisTestCluster cluster) {
		withProvider(cluster, (provider) -> {
			cluster.resetStats();
			provider.invalidate();
			long lookups = hammer(provider, LOOKUPS / THREADS, Long.MAX_VALUE);
			assertThat(lookups).isEqualTo(LOOKUPS);
			assertThat(cluster.totalCommandCalls(CLUSTER_NODES)).isOne();
		}, "slotwise.topology.cache-ttl=60s");
	}

	@Test
	void lookupsFromManyThreadsAcrossOneTtlExpirySendExactlyOneMore(RedisTestCluster cluster) {
		// TTL 2 s, load for 3 s from the first refresh: exactly one expiry (at 2 s) falls
		// inside, the next (4 s) not.
		withProvider(cluster, (provider) -> {
			cluster.resetStats();
			provider.invalidate();
			provider.getTopology();
			long deadline = System.nanoTime() + 3_000_000_000L;
			long lookups = hammer(provider, Integer.MAX_VALUE, deadline);
			assertThat(lookups).isGreaterThanOrEqualTo(LOOKUPS);
			assertThat(cluster.totalCommandCalls(CLUSTER_NODES)).isEqualTo(2);
		}, "slotwise.topology.cache-ttl=2s");
	}

	@Test
	void refreshesSpreadUniformlyOverAllNodes(RedisTestCluster cluster) {
		int refreshes = 600;
		BinomialBounds bounds = BinomialBounds.of(refreshes, cluster.nodes().size(), 1e-6);
		withProvider(cluster, (provider) -> {
			cluster.resetStats();
			refresh(provider, refreshes);
			Map<RedisNode, Long> calls = cluster.commandCallsPerNode(CLUSTER_NODES);
			assertThat(calls).hasSize(cluster.nodes().size());
			assertThat(calls.values())
				.allSatisfy((count) -> assertThat(count).isBetween((long) bounds.lower(), (long) bounds.upper()));
			assertThat(calls.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(refreshes);
		}, "slotwise.topology.prefer-replicas=false");
	}

	@Test
	void refreshesStayOnReplicasWhenPreferredAndSpreadUniformlyOverThem(RedisTestCluster cluster) {
		int refreshes = 600;
		// Roles first: the test cluster finds them with CLUSTER NODES, which must not
		// pollute the counts.
		List<RedisNode> masters = cluster.masters();
		List<RedisNode> replicas = cluster.replicas();
		BinomialBounds bounds = BinomialBounds.of(refreshes, replicas.size(), 1e-6);
		withProvider(cluster, (provider) -> {
			provider.getTopology();
			cluster.resetStats();
			refresh(provider, refreshes);
			for (RedisNode master : masters) {
				assertThat(cluster.commandCalls(master, CLUSTER_NODES)).as("calls on master %s", master).isZero();
			}
			for (RedisNode replica : replicas) {
				assertThat(cluster.commandCalls(replica, CLUSTER_NODES)).as("calls on replica %s", replica)
					.isBetween((long) bounds.lower(), (long) bounds.upper());
			}
		}, "slotwise.topology.prefer-replicas=true");
	}

	@Test
	void invalidateMakesTheNextLookupRefreshWithinTheTtl(RedisTestCluster cluster) {
		withProvider(cluster, (provider) -> {
			provider.getTopology();
			cluster.resetStats();
			provider.getTopology();
			assertThat(cluster.totalCommandCalls(CLUSTER_NODES)).isZero();
			provider.invalidate();
			provider.getTopology();
			assertThat(cluster.totalCommandCalls(CLUSTER_NODES)).isOne();
		}, "slotwise.topology.cache-ttl=60s");
	}

	static void refresh(RefreshableTopologyProvider provider, int times) {
		for (int i = 0; i < times; i++) {
			provider.invalidate();
			assertThat(provider.getTopology().getNodes()).isNotEmpty();
		}
	}

	private void withProvider(RedisTestCluster cluster, Consumer<RefreshableTopologyProvider> test,
			String... properties) {
		this.runner.withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.nodesProperty())
			.withPropertyValues(properties)
			.run((context) -> test
				.accept((RefreshableTopologyProvider) context.getBean(SlotwiseJedisConnectionFactory.class)
					.getRequiredTopologyProvider()));
	}

	/**
	 * Runs lookups on {@value #THREADS} threads released together; returns how many ran.
	 */
	static long hammer(RefreshableTopologyProvider provider, int perThread, long deadlineNanos) {
		CountDownLatch start = new CountDownLatch(1);
		AtomicLong lookups = new AtomicLong();
		List<Throwable> failures = new ArrayList<>();
		List<Thread> threads = new ArrayList<>();
		for (int t = 0; t < THREADS; t++) {
			Thread thread = new Thread(() -> {
				try {
					start.await();
					long done = 0;
					while (done < perThread && System.nanoTime() < deadlineNanos) {
						assertThat(provider.getTopology()).isNotNull();
						done++;
					}
					lookups.addAndGet(done);
				}
				catch (Throwable ex) {
					synchronized (failures) {
						failures.add(ex);
					}
				}
			});
			thread.start();
			threads.add(thread);
		}
		start.countDown();
		for (Thread thread : threads) {
			try {
				thread.join(30_000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
		assertThat(failures).isEmpty();
		return lookups.get();
	}

}
