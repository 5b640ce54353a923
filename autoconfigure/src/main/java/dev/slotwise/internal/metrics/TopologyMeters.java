package dev.slotwise.internal.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import dev.slotwise.internal.topology.TopologyObserver;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Micrometer meters for the cluster topology, one {@link TopologyObserver} per client:
 * <ul>
 * <li>{@value #REFRESHES} (function timer): each node asked during a refresh, with its
 * latency; tags {@code client}, {@code node} ({@code host:port} as the cluster reports
 * it) and {@code outcome} ({@code success} or {@code failure});</li>
 * <li>{@value #LOOKUPS} (function counter): topology lookups; tags {@code client} and
 * {@code result} ({@code hit} when a fresh cached topology was served, {@code miss}
 * otherwise);</li>
 * <li>{@value #AGE} (time gauge, seconds): time since the topology in use was last
 * fetched successfully; tag {@code client}; {@code NaN} before the first refresh.</li>
 * </ul>
 * A {@link MeterBinder}: Spring Boot binds it to the application's registry once every
 * bean exists. The observers count from the start, so the refreshes a connection factory
 * makes while it starts (before the binding) are not lost: the meters read those counts.
 */
public final class TopologyMeters extends CountingMeterBinder<TopologyMeters.ClientObserver>
		implements TopologyObserver.Source {

	/** Name of the refresh timer. */
	public static final String REFRESHES = "slotwise.topology.refreshes";

	/** Name of the lookup counter. */
	public static final String LOOKUPS = "slotwise.topology.lookups";

	/** Name of the topology age gauge. */
	public static final String AGE = "slotwise.topology.age";

	@Override
	protected ClientObserver newObserver(String client) {
		return new ClientObserver(client);
	}

	final class ClientObserver implements TopologyObserver, Counting {

		private final Tags tags;

		private final LongAdder hits = new LongAdder();

		private final LongAdder misses = new LongAdder();

		private final Map<String, RefreshCounts> successes = new ConcurrentHashMap<>();

		private final Map<String, RefreshCounts> failures = new ConcurrentHashMap<>();

		/**
		 * {@link System#nanoTime()} of the last successful refresh;
		 * {@code Long.MIN_VALUE} before the first.
		 */
		private volatile long lastSuccessNanos = Long.MIN_VALUE;

		ClientObserver(String client) {
			this.tags = Tags.of("client", client);
		}

		@Override
		public void refreshed(String node, boolean success, Duration duration) {
			if (success) {
				this.lastSuccessNanos = System.nanoTime();
			}
			Map<String, RefreshCounts> counts = success ? this.successes : this.failures;
			RefreshCounts nodeCounts = counts.get(node);
			if (nodeCounts == null) {
				nodeCounts = newNode(counts, node, success);
			}
			nodeCounts.count.increment();
			nodeCounts.nanos.add(duration.toNanos());
		}

		private RefreshCounts newNode(Map<String, RefreshCounts> counts, String node, boolean success) {
			synchronized (TopologyMeters.this) {
				RefreshCounts existing = counts.get(node);
				if (existing != null) {
					return existing;
				}
				RefreshCounts created = new RefreshCounts(
						this.tags.and("node", node).and("outcome", success ? "success" : "failure"));
				counts.put(node, created);
				registries().forEach(created::register);
				return created;
			}
		}

		@Override
		public void lookup(boolean hit) {
			(hit ? this.hits : this.misses).increment();
		}

		double ageNanos() {
			long last = this.lastSuccessNanos;
			return (last == Long.MIN_VALUE) ? Double.NaN : System.nanoTime() - last;
		}

		@Override
		public void register(MeterRegistry registry) {
			FunctionCounter.builder(LOOKUPS, this.hits, LongAdder::sum)
				.description("Cluster topology lookups")
				.tags(this.tags)
				.tag("result", "hit")
				.register(registry);
			FunctionCounter.builder(LOOKUPS, this.misses, LongAdder::sum)
				.description("Cluster topology lookups")
				.tags(this.tags)
				.tag("result", "miss")
				.register(registry);
			TimeGauge.builder(AGE, this, TimeUnit.NANOSECONDS, ClientObserver::ageNanos)
				.description("Time since the cluster topology in use was fetched")
				.tags(this.tags)
				.register(registry);
			this.successes.values().forEach((counts) -> counts.register(registry));
			this.failures.values().forEach((counts) -> counts.register(registry));
		}

	}

	/**
	 * Refreshes asked of one node with one outcome: how many and how long in total.
	 */
	private static final class RefreshCounts {

		private final Tags tags;

		private final LongAdder count = new LongAdder();

		private final LongAdder nanos = new LongAdder();

		RefreshCounts(Tags tags) {
			this.tags = tags;
		}

		void register(MeterRegistry registry) {
			FunctionTimer
				.builder(REFRESHES, this, (counts) -> counts.count.sum(), (counts) -> counts.nanos.sum(),
						TimeUnit.NANOSECONDS)
				.description("Cluster topology requests to one node during a refresh")
				.tags(this.tags)
				.register(registry);
		}

	}

}
