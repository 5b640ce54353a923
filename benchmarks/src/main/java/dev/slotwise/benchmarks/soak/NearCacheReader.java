package dev.slotwise.benchmarks.soak;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import dev.slotwise.internal.nearcache.NearCache;
import dev.slotwise.internal.nearcache.NearCacheRuntime;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A reader in an application with the near cache on
 * ({@code slotwise.near-cache.key-prefixes=soak:}): it reads keys that the workers of
 * every application write (the other applications' above all, whose writes reach this
 * one's near cache only through the nodes' invalidations), with {@code GET} and
 * {@code MGET}, and checks the near cache's promise on every value: a read that starts
 * more than {@link #BOUND_NANOS} after a write was acknowledged returns that write's
 * version or a later one. Two reads are excused, as in the workers' checks: when the
 * newer write may have been lost by a master killed right after it (asynchronous
 * replication), and when the older value was written by a call that reported failure (it
 * may have landed late, over the newer one: the servers hold it).
 */
final class NearCacheReader implements Runnable {

	/** The invalidation bound of the near cache's promise. */
	static final long BOUND_NANOS = 1_000_000_000L;

	private static final long PENDING = Long.MAX_VALUE / 2;

	private final Target target;

	private final List<String> keys;

	private final Map<String, NavigableMap<Long, long[]>> histories;

	private final FaultLog faults;

	private final LongSupplier clock;

	private final Random random;

	private final NearCache cache;

	private volatile boolean stopped;

	NearCacheReader(Target target, Map<String, NavigableMap<Long, long[]>> histories, FaultLog faults,
			LongSupplier clock, long seed) {
		this.target = target;
		this.keys = List.copyOf(histories.keySet());
		this.histories = histories;
		this.faults = faults;
		this.clock = clock;
		this.random = new Random(seed);
		this.cache = target.context().getBean(NearCacheRuntime.class).cache();
	}

	void stop() {
		this.stopped = true;
	}

	@Override
	public void run() {
		while (!this.stopped) {
			try {
				step();
			}
			catch (RuntimeException ex) {
				this.target.nearCache.errors.increment();
			}
			try {
				TimeUnit.MILLISECONDS.sleep(2);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	private void step() {
		StringRedisTemplate template = this.target.template();
		List<String> batch = new ArrayList<>();
		int size = this.random.nextBoolean() ? 1 : 6;
		while (batch.size() < size) {
			batch.add(this.keys.get(this.random.nextInt(this.keys.size())));
		}
		// What memory holds now, as an estimate of the hits (the cache's own counters are
		// not exposed).
		for (String key : batch) {
			if (this.cache.peek(key.getBytes(StandardCharsets.UTF_8)) != null) {
				this.target.nearCache.hits.increment();
			}
		}
		long start = this.clock.getAsLong();
		List<String> values = (size == 1)
				? java.util.Collections.singletonList(template.opsForValue().get(batch.get(0)))
				: template.opsForValue().multiGet(batch);
		if (values == null || values.size() != batch.size()) {
			this.target.invariants.neverWritten.increment();
			this.target.invariants.example("near cache: MGET returned " + values + " for " + batch);
			return;
		}
		for (int i = 0; i < batch.size(); i++) {
			check(batch.get(i), values.get(i), start);
		}
	}

	private void check(String key, @Nullable String value, long start) {
		Target.NearCacheFigures figures = this.target.nearCache;
		figures.reads.increment();
		if (value == null) {
			return;
		}
		int hash = value.lastIndexOf('#');
		long version = (hash > 0 && value.substring(0, hash).equals(key)) ? parse(value.substring(hash + 1)) : -1;
		NavigableMap<Long, long[]> history = this.histories.get(key);
		long[] own = history.get(version);
		if (version <= 0) {
			this.target.invariants.neverWritten.increment();
			this.target.invariants.example(String.format("%.1fs near cache: %s read %s", start / 1e9, key, value));
			return;
		}
		// Versions rise with time per key (one worker writes it): the first acknowledged
		// successor is the oldest.
		for (Map.Entry<Long, long[]> newer : history.tailMap(version, false).entrySet()) {
			long end = newer.getValue()[1];
			if (end <= 0 || end >= PENDING) {
				continue;
			}
			long lag = start - end;
			if (lag <= 0) {
				return;
			}
			if (this.faults.killCouldHaveLost(newer.getValue()[0], end, start)) {
				figures.excusedKill.increment();
				continue;
			}
			if (lag > BOUND_NANOS && own != null && own[1] < 0) {
				// The older value's SET reported failure: it may have landed after the
				// newer one.
				figures.excusedLate.increment();
				return;
			}
			figures.worstLagNanos.accumulate(lag);
			if (lag > BOUND_NANOS) {
				this.target.invariants.nearCacheStale.increment();
				this.target.invariants.example(String.format(
						"%.1fs near cache: %s read version %d, %d was acknowledged %.0f ms before the read started",
						start / 1e9, key, version, newer.getKey(), lag / 1e6));
			}
			return;
		}
	}

	private static long parse(String text) {
		try {
			return Long.parseLong(text);
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

}
