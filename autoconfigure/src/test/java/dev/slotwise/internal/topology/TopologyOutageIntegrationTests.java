package dev.slotwise.internal.topology;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.ClusterStateFailureException;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A master killed under load and its replica promoted: the topology refreshes stay
 * bounded by {@code slotwise.topology.min-refresh-interval}, as the servers count them,
 * every value returned is right, callers see node errors rather than topology exceptions,
 * and calls succeed again soon after the promotion.
 * <p>
 * Timeline: 8 threads of cross-slot {@code multiGet(100)} for 20 s; the master serving
 * the first key is SIGKILLed at 5 s. The test cluster's nodes run with
 * {@code cluster-node-timeout 1500}, so the cluster's own failover usually promotes the
 * replica about 2-4 s later; when it has not within {@value #AUTO_FAILOVER_WAIT_SECONDS}
 * s, the test promotes it with {@code CLUSTER FAILOVER TAKEOVER} and says so on standard
 * output.
 */
@WithRedisCluster(dedicated = true)
class TopologyOutageIntegrationTests {

	private static final Duration MIN_REFRESH_INTERVAL = Duration.ofSeconds(1);

	private static final Duration RUN = Duration.ofSeconds(20);

	private static final Duration KILL_AT = Duration.ofSeconds(5);

	private static final long AUTO_FAILOVER_WAIT_SECONDS = 6;

	/**
	 * Calls started this long after the promotion must all succeed: one paced refresh
	 * interval to learn the new master, a second one in case the first refresh asked a
	 * node that had not yet heard of the promotion, and one second for gossip and
	 * scheduling on a loaded two-core machine.
	 */
	private static final Duration RECOVERY_BOUND = MIN_REFRESH_INTERVAL.multipliedBy(2).plusSeconds(1);

	private static final int THREADS = 8;

	/**
	 * Nodes a refresh asks: one for Jedis; {@code slotwise.topology.refresh-sources} (3
	 * by default) for Lettuce.
	 */
	private static final Map<String, Integer> NODES_PER_REFRESH = Map.of("jedis", 1, "lettuce", 3);

	private ApplicationContextRunner runner(String client, RedisTestCluster cluster) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "spring.data.redis.timeout=2s",
					"spring.data.redis.connect-timeout=1s",
					"slotwise.topology.min-refresh-interval=" + MIN_REFRESH_INTERVAL.toMillis() + "ms");
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void refreshesStayBoundedAndCallsRecoverWhenAMasterDiesUnderLoad(String client, RedisTestCluster cluster) {
		this.runner(client, cluster).run((context) -> {
			Outage outage = Outage.run(cluster, context.getBean(StringRedisTemplate.class), "outage-" + client + ":");
			outage.print(client + " with Slotwise");
			OutageLoad load = outage.load;
			assertThat(load.wrong).as("calls that returned a wrong value or null").isEmpty();
			assertThat(load.failureKinds.values()).as("failures")
				.allSatisfy((ex) -> assertThat(ex).isInstanceOf(DataAccessException.class)
					.isNotInstanceOf(ClusterStateFailureException.class));
			// Each refresh starts at least the minimum interval after the previous one,
			// so a window of W seconds holds at most floor(W / interval) + 1 refreshes,
			// each asking NODES_PER_REFRESH nodes.
			long refreshes = outage.window.toNanos() / MIN_REFRESH_INTERVAL.toNanos() + 1;
			long bound = refreshes * NODES_PER_REFRESH.get(client);
			assertThat(outage.clusterNodesCalls)
				.as("CLUSTER NODES over all nodes in %s (bound %d refreshes x %d)", outage.window, refreshes,
						NODES_PER_REFRESH.get(client))
				.isLessThanOrEqualTo(bound);
			assertThat(load.failed.get()).as("calls failed while the master was down").isPositive();
			Duration recovered = outage.recoveredAfterPromotion();
			assertThat(recovered).as("last failing call started after the promotion")
				.isLessThanOrEqualTo(RECOVERY_BOUND);
			assertThat(Duration.ofNanos(load.lastCorrectCallStart.get())).as("correct calls until the end")
				.isGreaterThan(RUN.minusSeconds(2));
		});
	}

	/**
	 * The same outage without Slotwise, for the figures only: enable with
	 * {@code -Dslotwise.diagnostics=true}.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	@EnabledIfSystemProperty(named = "slotwise.diagnostics", matches = "true")
	void withoutSlotwiseForComparison(String client, RedisTestCluster cluster) {
		this.runner(client, cluster).withPropertyValues("slotwise.enabled=false").run((context) -> {
			Outage outage = Outage.run(cluster, context.getBean(StringRedisTemplate.class),
					"outage-off-" + client + ":");
			outage.print(client + " with slotwise.enabled=false");
			assertThat(outage.load.wrong).as("calls that returned a wrong value or null").isEmpty();
		});
	}

	/**
	 * Mixed get, set and multiGet through the same outage, with and without Slotwise, for
	 * the recovery figures only: enable with {@code -Dslotwise.diagnostics=true}.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "lettuce:true", "lettuce:false", "jedis:true", "jedis:false" })
	@EnabledIfSystemProperty(named = "slotwise.diagnostics", matches = "true")
	void mixedLoadForComparison(String variant, RedisTestCluster cluster) {
		String client = variant.substring(0, variant.indexOf(':'));
		String enabled = variant.substring(variant.indexOf(':') + 1);
		this.runner(client, cluster).withPropertyValues("slotwise.enabled=" + enabled).run((context) -> {
			Outage outage = Outage.run(cluster, context.getBean(StringRedisTemplate.class),
					"outage-mixed-" + client + enabled + ":", true);
			outage.print(client + " mixed, slotwise.enabled=" + enabled);
			assertThat(outage.load.wrong).as("calls that returned a wrong value or null").isEmpty();
		});
	}

	/**
	 * One run of the outage and what the servers counted.
	 */
	static final class Outage {

		final OutageLoad load;

		final long clusterNodesCalls;

		final Duration window;

		final Duration promotedAt;

		final boolean takenOver;

		private Outage(OutageLoad load, long clusterNodesCalls, Duration window, Duration promotedAt,
				boolean takenOver) {
			this.load = load;
			this.clusterNodesCalls = clusterNodesCalls;
			this.window = window;
			this.promotedAt = promotedAt;
			this.takenOver = takenOver;
		}

		static Outage run(RedisTestCluster cluster, StringRedisTemplate template, String prefix) throws Exception {
			return run(cluster, template, prefix, false);
		}

		static Outage run(RedisTestCluster cluster, StringRedisTemplate template, String prefix, boolean mixed)
				throws Exception {
			cluster.awaitHealthy();
			OutageLoad load = null;
			RedisNode victim = null;
			try {
				// Keys first: the victim is the master of the first key, and its replica
				// must hold every value.
				List<String> keys = java.util.stream.IntStream.range(0, 100).mapToObj((i) -> prefix + i).toList();
				victim = cluster.masterServing(keys.get(0));
				RedisNode replica = cluster.replicasOf(victim).get(0);
				template.opsForValue()
					.multiSet(keys.stream().collect(java.util.stream.Collectors.toMap((k) -> k, (k) -> "v:" + k)));
				cluster.awaitReplicated(victim, Duration.ofSeconds(10));
				// From here on the test sends no CLUSTER NODES of its own: the servers
				// count only the client's.
				cluster.resetStats();
				long windowStart = System.nanoTime();
				load = new OutageLoad(template, prefix, keys.size(), THREADS, mixed);
				load.sleepUntil(KILL_AT);
				long victimCalls = cluster.commandCalls(victim, "cluster|nodes");
				cluster.kill(victim);
				boolean takenOver = false;
				long deadline = System.nanoTime() + Duration.ofSeconds(AUTO_FAILOVER_WAIT_SECONDS).toNanos();
				while (!cluster.isMaster(replica) && System.nanoTime() < deadline) {
					Thread.sleep(20);
				}
				if (!cluster.isMaster(replica)) {
					cluster.takeOver(replica);
					takenOver = true;
					while (!cluster.isMaster(replica)) {
						Thread.sleep(20);
					}
				}
				Duration promotedAt = load.elapsed();
				load.sleepUntil(RUN);
				load.close();
				long calls = victimCalls + cluster.totalCommandCalls("cluster|nodes");
				Duration window = Duration.ofNanos(System.nanoTime() - windowStart);
				return new Outage(load, calls, window, promotedAt, takenOver);
			}
			finally {
				if (load != null) {
					load.close();
				}
				if (victim != null) {
					cluster.restart(victim);
					cluster.awaitHealthy();
				}
			}
		}

		/**
		 * How long after the promotion the last failing call started (zero when none
		 * failed after it).
		 */
		Duration recoveredAfterPromotion() {
			long lastFailure = this.load.lastFailedCallStart.get();
			return Duration.ofNanos(Math.max(0, lastFailure - this.promotedAt.toNanos()));
		}

		void print(String what) {
			System.out.printf(
					"[outage] %s: CLUSTER NODES=%d in %d ms; killed at %d ms, promoted at %d ms by %s; correct=%d "
							+ "failed=%d wrong=%d; last failing call started %d ms after the promotion; failures %s%n",
					what, this.clusterNodesCalls, this.window.toMillis(), KILL_AT.toMillis(),
					this.promotedAt.toMillis(),
					this.takenOver ? "CLUSTER FAILOVER TAKEOVER" : "the cluster's own failover",
					this.load.correct.get(), this.load.failed.get(), this.load.wrong.size(),
					Duration.ofNanos(this.load.lastFailedCallStart.get() - this.promotedAt.toNanos()).toMillis(),
					this.load.failureKinds.keySet());
		}

	}

}
