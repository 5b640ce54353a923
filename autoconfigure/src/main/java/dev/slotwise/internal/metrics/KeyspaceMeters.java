package dev.slotwise.internal.metrics;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.slotwise.internal.keyspace.ScanObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Micrometer meters for the cluster-wide key walks, one {@link ScanObserver} per client
 * (tag {@code client}):
 * <ul>
 * <li>{@value #SCANS} (timer): cluster-wide scans; tag {@code outcome} ({@code complete},
 * {@code closed}, {@code failed});</li>
 * <li>{@value #SCANNED} (counter): keys the scans returned;</li>
 * <li>{@value #DUPLICATES} (counter): keys returned by a node walk restarted after a
 * failover or by a slot rescanned after a migration, each of which may have been returned
 * before: an upper bound of the duplicates;</li>
 * <li>{@value #RESTARTS} (counter): node walks started over on a failed node's
 * successor;</li>
 * <li>{@value #CLEARS} (timer) and {@value #DELETED} (counter): cache clears on a cluster
 * and the keys they found and handed to deletion.</li>
 * </ul>
 * A {@link MeterBinder}, registered up front per client, as {@link MultiKeyMeters} is.
 */
public final class KeyspaceMeters extends RegistryMeterBinder<ScanObserver> implements ScanObserver.Source {

	/** Name of the scan timer. */
	public static final String SCANS = "slotwise.keyspace.scans";

	/** Name of the scanned-keys counter. */
	public static final String SCANNED = "slotwise.keyspace.keys.scanned";

	/** Name of the possible-duplicates counter. */
	public static final String DUPLICATES = "slotwise.keyspace.keys.duplicates";

	/** Name of the walk-restart counter. */
	public static final String RESTARTS = "slotwise.keyspace.walk.restarts";

	/** Name of the cache-clear timer. */
	public static final String CLEARS = "slotwise.keyspace.cache.clears";

	/** Name of the deleted-keys counter. */
	public static final String DELETED = "slotwise.keyspace.keys.deleted";

	/**
	 * Creates the meters, bound to no registry yet.
	 */
	public KeyspaceMeters() {
		super(Each::new, ClientMeters::new);
	}

	/**
	 * Passes everything to the observers a list holds at the time.
	 */
	private record Each(List<ScanObserver> observers) implements ScanObserver {

		@Override
		public void scanned(long keys, long rescanned, long restarts, Outcome outcome, long durationNanos) {
			for (ScanObserver observer : this.observers) {
				observer.scanned(keys, rescanned, restarts, outcome, durationNanos);
			}
		}

		@Override
		public void cleared(long deleted, long durationNanos) {
			for (ScanObserver observer : this.observers) {
				observer.cleared(deleted, durationNanos);
			}
		}

	}

	private static final class ClientMeters implements ScanObserver {

		private final Map<ScanObserver.Outcome, Timer> scans = new EnumMap<>(ScanObserver.Outcome.class);

		private final Counter scanned;

		private final Counter duplicates;

		private final Counter restarts;

		private final Timer clears;

		private final Counter deleted;

		ClientMeters(MeterRegistry registry, String client) {
			Tags tags = Tags.of("client", client);
			for (ScanObserver.Outcome outcome : ScanObserver.Outcome.values()) {
				this.scans.put(outcome,
						Timer.builder(SCANS)
							.description("Cluster-wide scans")
							.tags(tags)
							.tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
							.register(registry));
			}
			this.scanned = counter(registry, SCANNED, "Keys returned by cluster-wide scans", tags);
			this.duplicates = counter(registry, DUPLICATES,
					"Keys returned again after a failover or slot migration (an upper bound of the duplicates)", tags);
			this.restarts = counter(registry, RESTARTS, "Node walks restarted on a failed node's successor", tags);
			this.clears = Timer.builder(CLEARS)
				.description("Cache clears on a cluster through the cluster-wide scan")
				.tags(tags)
				.maximumExpectedValue(Duration.ofMinutes(10))
				.register(registry);
			this.deleted = counter(registry, DELETED, "Keys cache clears found and handed to deletion", tags);
		}

		private static Counter counter(MeterRegistry registry, String name, String description, Tags tags) {
			return Counter.builder(name).description(description).tags(tags).register(registry);
		}

		@Override
		public void scanned(long keys, long rescanned, long restarts, Outcome outcome, long durationNanos) {
			this.scans.get(outcome).record(durationNanos, TimeUnit.NANOSECONDS);
			this.scanned.increment(keys);
			this.duplicates.increment(rescanned);
			this.restarts.increment(restarts);
		}

		@Override
		public void cleared(long deleted, long durationNanos) {
			this.clears.record(durationNanos, TimeUnit.NANOSECONDS);
			this.deleted.increment(deleted);
		}

	}

}
