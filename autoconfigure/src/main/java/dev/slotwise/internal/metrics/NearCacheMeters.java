package dev.slotwise.internal.metrics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import dev.slotwise.internal.nearcache.NearCache;
import dev.slotwise.internal.nearcache.NearCacheObserver;
import dev.slotwise.internal.nearcache.NearCacheRuntime;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Micrometer meters for the near cache ({@code slotwise.near-cache.enabled}):
 * <ul>
 * <li>{@value #READS} (counter): keys read through the near cache; tag {@code result}
 * ({@code hit} when answered from memory, {@code miss} when read from Redis);</li>
 * <li>{@value #EVICTIONS} (counter): entries Caffeine dropped; tag {@code cause}
 * ({@code size} when the cache was full, {@code expired} after the time-to-live);</li>
 * <li>{@value #INVALIDATIONS} (counter) and {@value #INVALIDATED_KEYS} (counter):
 * invalidation messages received from the nodes and the keys they named (each write is
 * reported by its master and by each of its replicas);</li>
 * <li>{@value #FLUSHES} (counter) and {@value #FLUSHED_ENTRIES} (counter): slot flushes
 * and the entries they dropped; tag {@code cause} ({@code link-lost}, {@code topology},
 * {@code server}, {@code clear}, {@code restart}, {@code refused}, {@code stopped});</li>
 * <li>{@value #ENTRIES} (gauge) and {@value #SIZE} (gauge, bytes): what the cache holds,
 * as Caffeine estimates it;</li>
 * <li>{@value #MASTER_ENTRIES} (gauge): entries per master; tag {@code master}
 * ({@code host:port}); counted every {@value #REFRESH_SECONDS} seconds on a thread of its
 * own (it walks the cache), not at each scrape;</li>
 * <li>{@value #LINKS} (gauge): invalidation links to the nodes (masters and replicas);
 * tag {@code state} ({@code ready}, {@code connecting}, {@code down},
 * {@code refused}).</li>
 * </ul>
 * There is one near cache per application, so no {@code client} tag. A
 * {@link MeterBinder}: counts made before Spring Boot binds the registry are kept and
 * show once it does. A hit costs one {@link LongAdder} increment.
 */
public final class NearCacheMeters implements NearCacheObserver, MeterBinder, AutoCloseable {

	/** Name of the reads counter. */
	public static final String READS = "slotwise.near-cache.reads";

	/** Name of the evictions counter. */
	public static final String EVICTIONS = "slotwise.near-cache.evictions";

	/** Name of the invalidation messages counter. */
	public static final String INVALIDATIONS = "slotwise.near-cache.invalidations";

	/** Name of the invalidated keys counter. */
	public static final String INVALIDATED_KEYS = "slotwise.near-cache.invalidations.keys";

	/** Name of the flushes counter. */
	public static final String FLUSHES = "slotwise.near-cache.flushes";

	/** Name of the flushed entries counter. */
	public static final String FLUSHED_ENTRIES = "slotwise.near-cache.flushes.entries";

	/** Name of the entries gauge. */
	public static final String ENTRIES = "slotwise.near-cache.entries";

	/** Name of the size gauge (bytes). */
	public static final String SIZE = "slotwise.near-cache.size";

	/** Name of the entries-per-master gauge. */
	public static final String MASTER_ENTRIES = "slotwise.near-cache.master.entries";

	/** Name of the links gauge. */
	public static final String LINKS = "slotwise.near-cache.links";

	/** How often the entries per master are counted, in seconds. */
	public static final long REFRESH_SECONDS = 5;

	/**
	 * The flush causes the near cache reports; others are registered when they first
	 * occur.
	 */
	static final List<String> FLUSH_CAUSES = List.of("link-lost", "topology", "server", "clear", "restart", "refused",
			"stopped");

	private static final List<String> LINK_STATES = List.of("ready", "connecting", "down", "refused");

	private static final Log logger = LogFactory.getLog(NearCacheMeters.class);

	private final Duration refresh;

	private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

	private final LongAdder hits = new LongAdder();

	private final LongAdder misses = new LongAdder();

	private final LongAdder evictedBySize = new LongAdder();

	private final LongAdder expired = new LongAdder();

	private final LongAdder invalidations = new LongAdder();

	private final LongAdder invalidatedKeys = new LongAdder();

	private final Map<String, Flushes> flushes = new ConcurrentHashMap<>();

	private final List<MultiGauge> perMaster = new CopyOnWriteArrayList<>();

	private volatile @Nullable NearCache cache;

	private volatile @Nullable NearCacheRuntime runtime;

	private @Nullable ScheduledExecutorService refresher;

	private boolean closed;

	/**
	 * Creates the meters, bound to no registry yet.
	 */
	public NearCacheMeters() {
		this(Duration.ofSeconds(REFRESH_SECONDS));
	}

	/**
	 * Creates the meters with another refresh interval of the entries per master, for
	 * tests.
	 * @param refresh how often the entries per master are counted
	 */
	NearCacheMeters(Duration refresh) {
		Assert.isTrue(!refresh.isNegative() && !refresh.isZero(), "'refresh' must be positive");
		this.refresh = refresh;
		FLUSH_CAUSES.forEach((cause) -> this.flushes.put(cause, new Flushes(cause)));
	}

	@Override
	public synchronized void bindTo(MeterRegistry registry) {
		Assert.notNull(registry, "'registry' must not be null");
		this.registries.add(registry);
		reads(registry, "hit", this.hits);
		reads(registry, "miss", this.misses);
		evictions(registry, "size", this.evictedBySize);
		evictions(registry, "expired", this.expired);
		FunctionCounter.builder(INVALIDATIONS, this.invalidations, LongAdder::sum)
			.description("Invalidation messages the near cache received from the nodes")
			.register(registry);
		FunctionCounter.builder(INVALIDATED_KEYS, this.invalidatedKeys, LongAdder::sum)
			.description("Keys named by the invalidation messages the near cache received")
			.baseUnit("keys")
			.register(registry);
		this.flushes.values().forEach((flushes) -> flushes.register(registry));
		Gauge.builder(ENTRIES, this, NearCacheMeters::entries)
			.description("Entries the near cache holds (Caffeine's estimate)")
			.baseUnit("entries")
			.register(registry);
		Gauge.builder(SIZE, this, NearCacheMeters::bytes)
			.description("Bytes of keys and values the near cache holds, with a per-entry overhead")
			.baseUnit("bytes")
			.register(registry);
		for (String state : LINK_STATES) {
			Gauge.builder(LINKS, this, (meters) -> meters.links(state))
				.description("Invalidation links of the near cache to the nodes, masters and replicas, by state")
				.tag("state", state)
				.register(registry);
		}
		this.perMaster.add(MultiGauge.builder(MASTER_ENTRIES)
			.description("Entries the near cache holds per master, counted every few seconds")
			.baseUnit("entries")
			.register(registry));
		startRefresher();
	}

	private void reads(MeterRegistry registry, String result, LongAdder count) {
		FunctionCounter.builder(READS, count, LongAdder::sum)
			.description("Keys read through the near cache, answered from memory (hit) or from Redis (miss)")
			.tag("result", result)
			.register(registry);
	}

	private void evictions(MeterRegistry registry, String cause, LongAdder count) {
		FunctionCounter.builder(EVICTIONS, count, LongAdder::sum)
			.description("Near cache entries dropped because the cache was full (size) or outlived the time-to-live")
			.tag("cause", cause)
			.register(registry);
	}

	@Override
	public void read(boolean hit, int count) {
		(hit ? this.hits : this.misses).add(count);
	}

	@Override
	public void evicted(String cause) {
		("expired".equals(cause) ? this.expired : this.evictedBySize).increment();
	}

	@Override
	public void invalidations(int keys) {
		this.invalidations.increment();
		this.invalidatedKeys.add(keys);
	}

	@Override
	public void flushed(String cause, int entries) {
		Flushes counts = this.flushes.get(cause);
		if (counts == null) {
			counts = newCause(cause);
		}
		counts.flushes.increment();
		counts.entries.add(entries);
	}

	private synchronized Flushes newCause(String cause) {
		Flushes counts = this.flushes.get(cause);
		if (counts == null) {
			counts = new Flushes(cause);
			this.registries.forEach(counts::register);
			this.flushes.put(cause, counts);
		}
		return counts;
	}

	@Override
	public void bind(NearCache cache) {
		this.cache = cache;
	}

	@Override
	public synchronized void bind(NearCacheRuntime runtime) {
		this.runtime = runtime;
		startRefresher();
	}

	private double entries() {
		NearCache cache = this.cache;
		return (cache != null) ? cache.size() : 0;
	}

	private double bytes() {
		NearCache cache = this.cache;
		return (cache != null) ? cache.weight() : 0;
	}

	private double links(String state) {
		NearCacheRuntime runtime = this.runtime;
		if (runtime == null) {
			return 0;
		}
		Map<String, String> links = runtime.links();
		if (runtime.refused() != null) {
			// A refusal closes every link: they are down because the servers said no,
			// which is not a fault to chase.
			return state.equals("refused") ? links.size() : 0;
		}
		return links.values().stream().filter(state::equals).count();
	}

	/**
	 * Starts counting entries per master once there is a registry and a runtime, and at
	 * most once.
	 */
	private void startRefresher() {
		if (this.refresher != null || this.closed || this.runtime == null || this.registries.isEmpty()) {
			return;
		}
		ScheduledExecutorService refresher = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "slotwise-near-cache-meters");
			thread.setDaemon(true);
			return thread;
		});
		refresher.scheduleWithFixedDelay(this::refreshQuietly, 0, this.refresh.toMillis(), TimeUnit.MILLISECONDS);
		this.refresher = refresher;
	}

	private void refreshQuietly() {
		try {
			refresh();
		}
		catch (RuntimeException ex) {
			logger.debug("Near cache entries per master not counted; counted again at the next refresh", ex);
		}
	}

	/**
	 * Counts the entries of each master and updates the gauges: every master the tracking
	 * knows, with 0 for those that hold none. Walks the cache, so it runs on the
	 * refresher's thread only (and in tests).
	 */
	void refresh() {
		NearCacheRuntime runtime = this.runtime;
		if (runtime == null) {
			return;
		}
		Map<String, Integer> counts = runtime.entriesPerMaster();
		Set<String> masters = runtime.masters();
		List<MultiGauge.Row<?>> rows = new ArrayList<>();
		for (String master : masters) {
			rows.add(MultiGauge.Row.of(Tags.of("master", master), counts.getOrDefault(master, 0)));
		}
		counts.forEach((master, count) -> {
			if (!masters.contains(master)) {
				// Entries of slots whose owner the view does not know (or no longer
				// knows): shown, not lost.
				rows.add(MultiGauge.Row.of(Tags.of("master", master), count));
			}
		});
		for (MultiGauge gauge : this.perMaster) {
			gauge.register(rows, true);
		}
	}

	@Override
	public synchronized void close() {
		this.closed = true;
		if (this.refresher != null) {
			this.refresher.shutdownNow();
		}
	}

	/**
	 * Flushes of one cause and the entries they dropped.
	 */
	private static final class Flushes {

		private final String cause;

		private final LongAdder flushes = new LongAdder();

		private final LongAdder entries = new LongAdder();

		Flushes(String cause) {
			this.cause = cause;
		}

		void register(MeterRegistry registry) {
			FunctionCounter.builder(FLUSHES, this.flushes, LongAdder::sum)
				.description("Slot flushes of the near cache: a lost invalidation link, a topology change, a FLUSHALL "
						+ "on a node, a cache clear, new prefixes, a refusal or the end of tracking")
				.tag("cause", this.cause)
				.register(registry);
			FunctionCounter.builder(FLUSHED_ENTRIES, this.entries, LongAdder::sum)
				.description("Entries the near cache's slot flushes dropped")
				.baseUnit("entries")
				.tag("cause", this.cause)
				.register(registry);
		}

	}

}
