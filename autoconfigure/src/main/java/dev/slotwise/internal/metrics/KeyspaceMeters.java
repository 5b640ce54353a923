package dev.slotwise.internal.metrics;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.slotwise.internal.keyspace.ScanObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Micrometer meters for the cluster-wide key walks, one {@link ScanObserver} per client (tag {@code client}):
 * <ul>
 * <li>{@value #SCANS} (timer): cluster-wide scans; tag {@code outcome} ({@code complete}, {@code closed},
 * {@code failed});</li>
 * <li>{@value #SCANNED} (counter): keys the scans returned;</li>
 * <li>{@value #DUPLICATES} (counter): keys returned by a node walk restarted after a failover or by a slot rescanned
 * after a migration, each of which may have been returned before: an upper bound of the duplicates;</li>
 * <li>{@value #RESTARTS} (counter): node walks started over on a failed node's successor;</li>
 * <li>{@value #CLEARS} (timer) and {@value #DELETED} (counter): cache clears on a cluster and the keys they
 * found and handed to deletion.</li>
 * </ul>
 * A {@link MeterBinder}, registered up front per client, as {@link MultiKeyMeters} is.
 */
public final class KeyspaceMeters extends ClientMeterBinder<KeyspaceMeters.ClientObserver>
		implements ScanObserver.Source {

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

	@Override
	public ScanObserver forClient(String client) {
		return observer(client);
	}

	@Override
	protected ClientObserver newObserver(String client) {
		return new ClientObserver();
	}

	@Override
	protected void register(ClientObserver observer, MeterRegistry registry, String client) {
		observer.meters.add(new ClientMeters(registry, client));
	}

	static final class ClientObserver implements ScanObserver {

		private final List<ClientMeters> meters = new CopyOnWriteArrayList<>();

		@Override
		public void scanned(long keys, long rescanned, long restarts, Outcome outcome, long durationNanos) {
			for (ClientMeters meters : this.meters) {
				meters.scans.get(outcome).record(durationNanos, TimeUnit.NANOSECONDS);
				meters.scanned.increment(keys);
				meters.duplicates.increment(rescanned);
				meters.restarts.increment(restarts);
			}
		}

		@Override
		public void cleared(long deleted, long durationNanos) {
			for (ClientMeters meters : this.meters) {
				meters.clears.record(durationNanos, TimeUnit.NANOSECONDS);
				meters.deleted.increment(deleted);
			}
		}

	}

	private static final class ClientMeters {

		private final Map<ScanObserver.Outcome, Timer> scans = new EnumMap<>(ScanObserver.Outcome.class);

		private final Counter scanned;

		private final Counter duplicates;

		private final Counter restarts;

		private final Timer clears;

		private final Counter deleted;

		ClientMeters(MeterRegistry registry, String client) {
			Tags tags = Tags.of("client", client);
			for (ScanObserver.Outcome outcome : ScanObserver.Outcome.values()) {
				this.scans.put(outcome, Timer.builder(SCANS)
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

	}

}
