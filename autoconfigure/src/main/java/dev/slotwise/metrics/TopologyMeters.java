package dev.slotwise.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.slotwise.topology.TopologyObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;

import org.springframework.util.Assert;

/**
 * Micrometer meters for one client's cluster topology, fed as a {@link TopologyObserver}:
 * <ul>
 * <li>{@value #REFRESHES} (timer): each node asked during a refresh, with its latency; tags {@code client},
 * {@code node} ({@code host:port}) and {@code outcome} ({@code success} or {@code failure});</li>
 * <li>{@value #LOOKUPS} (counter): topology lookups; tags {@code client} and {@code result} ({@code hit} when a
 * fresh cached topology was served, {@code miss} otherwise);</li>
 * <li>{@value #AGE} (time gauge, seconds): time since the topology in use was last fetched successfully; tag
 * {@code client}; {@code NaN} before the first refresh.</li>
 * </ul>
 */
public final class TopologyMeters implements TopologyObserver {

	/** Name of the refresh timer. */
	public static final String REFRESHES = "slotwise.topology.refreshes";

	/** Name of the lookup counter. */
	public static final String LOOKUPS = "slotwise.topology.lookups";

	/** Name of the topology age gauge. */
	public static final String AGE = "slotwise.topology.age";

	private final MeterRegistry registry;

	private final Tags tags;

	private final Counter hits;

	private final Counter misses;

	private final Map<String, Timer> successes = new ConcurrentHashMap<>();

	private final Map<String, Timer> failures = new ConcurrentHashMap<>();

	/** {@link System#nanoTime()} of the last successful refresh; {@code Long.MIN_VALUE} before the first. */
	private volatile long lastSuccessNanos = Long.MIN_VALUE;

	/**
	 * Registers the lookup counters and the age gauge.
	 * @param registry where the meters go
	 * @param client the client tag, {@code jedis} or {@code lettuce}
	 */
	public TopologyMeters(MeterRegistry registry, String client) {
		Assert.notNull(registry, "'registry' must not be null");
		Assert.hasText(client, "'client' must not be empty");
		this.registry = registry;
		this.tags = Tags.of("client", client);
		this.hits = Counter.builder(LOOKUPS)
			.description("Cluster topology lookups")
			.tags(this.tags)
			.tag("result", "hit")
			.register(registry);
		this.misses = Counter.builder(LOOKUPS)
			.description("Cluster topology lookups")
			.tags(this.tags)
			.tag("result", "miss")
			.register(registry);
		TimeGauge.builder(AGE, this, TimeUnit.NANOSECONDS, TopologyMeters::ageNanos)
			.description("Time since the cluster topology in use was fetched")
			.tags(this.tags)
			.register(registry);
	}

	@Override
	public void refreshed(String node, boolean success, Duration duration) {
		if (success) {
			this.lastSuccessNanos = System.nanoTime();
		}
		Map<String, Timer> timers = success ? this.successes : this.failures;
		timers.computeIfAbsent(node, (key) -> Timer.builder(REFRESHES)
			.description("Cluster topology requests to one node during a refresh")
			.tags(this.tags)
			.tag("node", key)
			.tag("outcome", success ? "success" : "failure")
			.register(this.registry)).record(duration);
	}

	@Override
	public void lookup(boolean hit) {
		(hit ? this.hits : this.misses).increment();
	}

	private double ageNanos() {
		long last = this.lastSuccessNanos;
		return (last == Long.MIN_VALUE) ? Double.NaN : System.nanoTime() - last;
	}

}
