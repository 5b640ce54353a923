package dev.slotwise.benchmarks.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One worker of one application: a thread that owns its keys (no other worker writes
 * them), runs a seeded random mix of operations at a steady pace and checks every reply
 * against what it wrote and read before.
 * <p>
 * Versioned keys hold {@code <key>#<version>}, versions rising per worker; a read must
 * return a version this worker wrote to that key, not older than the newest it already
 * read or had acknowledged (unless a master was killed right after that newer write: then
 * the server may have lost it). Counters take only {@code INCR}: each reply must be one
 * more than the last acknowledged one, plus at most the increments that failed meanwhile
 * (they may have been applied).
 */
final class Worker implements Runnable {

	private static final int VERSIONED_KEYS = 8;

	private static final int MULTI_KEYS = 16;

	private static final int MULTI_BATCH = 6;

	private static final int COUNTERS = 4;

	/** Versions kept per key to recognise what a read returns. */
	private static final int HISTORY = 1024;

	private static final long FAILED = -1;

	/** The worker's number in its application. */
	final int index;

	private final Target target;

	private final FaultLog faults;

	private final LongSupplier clock;

	private final Random random;

	private final long periodNanos;

	private final List<String> versioned = new ArrayList<>();

	private final List<String> multi = new ArrayList<>();

	private final List<String> counters = new ArrayList<>();

	private final Map<String, KeyState> keys = new HashMap<>();

	private final Map<String, CounterState> counterStates = new HashMap<>();

	private long version;

	private volatile boolean stopped;

	Worker(Target target, int index, long seed, int ratePerSecond, FaultLog faults, LongSupplier clock) {
		this.index = index;
		this.target = target;
		this.faults = faults;
		this.clock = clock;
		this.random = new Random(seed * 31 + index);
		this.periodNanos = (ratePerSecond > 0) ? 1_000_000_000L / ratePerSecond : 0;
		String prefix = target.keyPrefix + ":w" + index;
		for (int i = 0; i < VERSIONED_KEYS; i++) {
			this.versioned.add(prefix + ":v" + i);
		}
		for (int i = 0; i < MULTI_KEYS; i++) {
			this.multi.add(prefix + ":m" + i);
		}
		for (int i = 0; i < COUNTERS; i++) {
			this.counters.add(prefix + ":c" + i);
		}
		this.versioned.forEach((key) -> this.keys.put(key, new KeyState()));
		this.multi.forEach((key) -> this.keys.put(key, new KeyState()));
		this.counters.forEach((key) -> this.counterStates.put(key, new CounterState()));
	}

	/** Every key this worker uses, for slot migrations that should carry keys. */
	List<String> keys() {
		List<String> all = new ArrayList<>(this.versioned);
		all.addAll(this.multi);
		all.addAll(this.counters);
		return all;
	}

	/**
	 * The writes of this worker's versioned and multi-key keys (version → sent, answered;
	 * answered negative when the write failed, {@code Long.MAX_VALUE / 2} while it runs),
	 * for readers in other threads.
	 */
	Map<String, NavigableMap<Long, long[]>> histories() {
		Map<String, NavigableMap<Long, long[]>> histories = new LinkedHashMap<>();
		this.versioned.forEach((key) -> histories.put(key, this.keys.get(key).history));
		this.multi.forEach((key) -> histories.put(key, this.keys.get(key).history));
		return histories;
	}

	void stop() {
		this.stopped = true;
	}

	@Override
	public void run() {
		long next = this.clock.getAsLong();
		while (!this.stopped) {
			if (this.periodNanos > 0) {
				long wait = next - this.clock.getAsLong();
				if (wait > 0) {
					sleepNanos(wait);
				}
				// After a long stall (a fault), do not burst to catch up.
				next = Math.max(next + this.periodNanos, this.clock.getAsLong() - this.periodNanos);
			}
			step();
		}
	}

	private void step() {
		int dice = this.random.nextInt(100);
		if (dice < 25) {
			incr(pick(this.counters));
		}
		else if (dice < 50) {
			set(pick(this.versioned));
		}
		else if (dice < 70) {
			get(pick(this.versioned));
		}
		else if (dice < 80) {
			multiSet(batch());
		}
		else if (dice < 90) {
			multiGet(batch(), false);
		}
		else if (this.target.client.equals("lettuce")) {
			multiGet(batch(), true);
		}
		else {
			pipeline();
		}
	}

	private void incr(String key) {
		long start = this.clock.getAsLong();
		try {
			Long reply = template().opsForValue().increment(key);
			long end = this.clock.getAsLong();
			this.target.succeeded(start, end);
			counted(key, (reply != null) ? reply : -1, start, end);
		}
		catch (RuntimeException ex) {
			this.counterStates.get(key).unacknowledged++;
			this.target.failed("INCR", start, this.clock.getAsLong(), ex);
		}
	}

	private void set(String key) {
		long v = ++this.version;
		KeyState state = this.keys.get(key);
		long start = this.clock.getAsLong();
		state.sent(v, start);
		try {
			template().opsForValue().set(key, value(key, v));
			long end = this.clock.getAsLong();
			state.acknowledged(v, end);
			this.target.succeeded(start, end);
		}
		catch (RuntimeException ex) {
			long end = this.clock.getAsLong();
			state.failed(v, end);
			this.target.failed("SET", start, end, ex);
		}
	}

	private void get(String key) {
		long start = this.clock.getAsLong();
		try {
			String value = template().opsForValue().get(key);
			long end = this.clock.getAsLong();
			this.target.succeeded(start, end);
			read(key, value, start);
		}
		catch (RuntimeException ex) {
			this.target.failed("GET", start, this.clock.getAsLong(), ex);
		}
	}

	private void multiSet(List<String> batch) {
		long v = ++this.version;
		Map<String, String> values = new LinkedHashMap<>();
		long start = this.clock.getAsLong();
		for (String key : batch) {
			values.put(key, value(key, v));
			this.keys.get(key).sent(v, start);
		}
		try {
			template().opsForValue().multiSet(values);
			long end = this.clock.getAsLong();
			batch.forEach((key) -> this.keys.get(key).acknowledged(v, end));
			this.target.succeeded(start, end);
		}
		catch (RuntimeException ex) {
			long end = this.clock.getAsLong();
			batch.forEach((key) -> this.keys.get(key).failed(v, end));
			this.target.failed("MSET", start, end, ex);
		}
	}

	private void multiGet(List<String> batch, boolean reactive) {
		long start = this.clock.getAsLong();
		String operation = reactive ? "reactive MGET" : "MGET";
		try {
			List<String> values = reactive
					? this.target.reactive().opsForValue().multiGet(batch).block(Duration.ofSeconds(10))
					: template().opsForValue().multiGet(batch);
			long end = this.clock.getAsLong();
			if (values == null || values.size() != batch.size()) {
				this.target.failed(operation, start, end, new IllegalStateException(
						"Expected " + batch.size() + " values, got " + ((values != null) ? values.size() : "null")));
				this.target.invariants.neverWritten.increment();
				this.target.invariants.example(operation + " returned " + values + " for " + batch);
				return;
			}
			this.target.succeeded(start, end);
			for (int i = 0; i < batch.size(); i++) {
				read(batch.get(i), values.get(i), start);
			}
		}
		catch (RuntimeException ex) {
			this.target.failed(operation, start, this.clock.getAsLong(), ex);
		}
	}

	/**
	 * Two SETs, an INCR and two GETs (one of a key just set) in one
	 * {@code executePipelined} with Slotwise; one by one without it, since Spring Data
	 * Redis refuses to pipeline a Jedis cluster connection.
	 */
	private void pipeline() {
		String first = pick(this.versioned);
		String second = pick(this.versioned);
		while (second.equals(first)) {
			second = pick(this.versioned);
		}
		String other = pick(this.versioned);
		String counter = pick(this.counters);
		if (!this.target.slotwise) {
			set(first);
			set(second);
			incr(counter);
			get(first);
			get(other);
			return;
		}
		long v1 = ++this.version;
		long v2 = ++this.version;
		long start = this.clock.getAsLong();
		this.keys.get(first).sent(v1, start);
		this.keys.get(second).sent(v2, start);
		String firstKey = first;
		String secondKey = second;
		try {
			List<Object> results = template().executePipelined((RedisCallback<Object>) (connection) -> {
				pipelined(connection, firstKey, value(firstKey, v1));
				pipelined(connection, secondKey, value(secondKey, v2));
				connection.stringCommands().incr(bytes(counter));
				connection.stringCommands().get(bytes(firstKey));
				connection.stringCommands().get(bytes(other));
				return null;
			});
			long end = this.clock.getAsLong();
			if (results.size() != 5 || !Boolean.TRUE.equals(results.get(0)) || !Boolean.TRUE.equals(results.get(1))
					|| !(results.get(2) instanceof Long)) {
				this.keys.get(first).failed(v1, end);
				this.keys.get(second).failed(v2, end);
				this.counterStates.get(counter).unacknowledged++;
				this.target.failed("pipeline", start, end, new IllegalStateException("Unexpected replies " + results));
				return;
			}
			this.keys.get(first).acknowledged(v1, end);
			this.keys.get(second).acknowledged(v2, end);
			this.target.succeeded(start, end);
			counted(counter, (Long) results.get(2), start, end);
			read(first, (String) results.get(3), start);
			read(other, (String) results.get(4), start);
		}
		catch (RuntimeException ex) {
			long end = this.clock.getAsLong();
			this.keys.get(first).failed(v1, end);
			this.keys.get(second).failed(v2, end);
			this.counterStates.get(counter).unacknowledged++;
			this.target.failed("pipeline", start, end, ex);
		}
	}

	private static void pipelined(RedisConnection connection, String key, String value) {
		connection.stringCommands().set(bytes(key), bytes(value));
	}

	/**
	 * Checks every key once more after the faults stopped: each value must be one this
	 * worker wrote, not older than the newest acknowledged or read; each counter at least
	 * its last acknowledged value.
	 */
	void finalCheck() {
		for (String key : this.keys.keySet()) {
			for (int attempt = 0;; attempt++) {
				long start = this.clock.getAsLong();
				try {
					read(key, template().opsForValue().get(key), start);
					break;
				}
				catch (RuntimeException ex) {
					if (attempt == 5) {
						this.target.invariants.example("final GET " + key + " failed: " + Target.describe(ex));
						break;
					}
					sleepNanos(TimeUnit.SECONDS.toNanos(1));
				}
			}
		}
		for (String key : this.counters) {
			long start = this.clock.getAsLong();
			try {
				String value = template().opsForValue().get(key);
				long reply = (value != null) ? Long.parseLong(value) : 0;
				CounterState state = this.counterStates.get(key);
				// A read, not an INCR: the expected value is the last acknowledged one,
				// not one more.
				state.lastAcknowledged--;
				counted(key, reply + 0, start, start);
			}
			catch (RuntimeException ex) {
				this.target.invariants.example("final GET " + key + " failed: " + Target.describe(ex));
			}
		}
	}

	/**
	 * Checks an INCR reply (or, at the end, a counter's value as if it came from one more
	 * INCR).
	 */
	private void counted(String key, long reply, long start, long end) {
		Invariants invariants = this.target.invariants;
		invariants.checked.increment();
		CounterState state = this.counterStates.get(key);
		long expected = state.lastAcknowledged + 1;
		if (reply < expected) {
			long lost = expected - reply;
			if (this.faults.killCouldHaveLost(state.lastStart, state.lastEnd, start)) {
				invariants.lostIncrementsToKill.add(lost);
			}
			else {
				invariants.lostIncrementsUnexplained.add(lost);
				invariants.example(String.format("%.1fs %s: INCR returned %d after %d was acknowledged", seconds(start),
						key, reply, state.lastAcknowledged));
			}
		}
		else if (reply > expected) {
			long extra = reply - expected;
			long explained = Math.min(extra, state.unacknowledged);
			state.unacknowledged -= explained;
			invariants.failedButApplied.add(explained);
			if (extra > explained) {
				invariants.duplicateIncrements.add(extra - explained);
				invariants.example(String.format("%.1fs %s: INCR returned %d, last acknowledged %d, %d failed since",
						seconds(start), key, reply, state.lastAcknowledged, explained));
			}
		}
		state.lastAcknowledged = reply;
		state.lastStart = start;
		state.lastEnd = end;
	}

	/** Checks a value read from a versioned key. */
	private void read(String key, @Nullable String value, long start) {
		Invariants invariants = this.target.invariants;
		invariants.checked.increment();
		KeyState state = this.keys.get(key);
		long v;
		if (value == null) {
			v = 0;
		}
		else {
			int hash = value.lastIndexOf('#');
			v = (hash > 0 && value.substring(0, hash).equals(key)) ? parse(value.substring(hash + 1)) : -1;
			Long oldestKept = state.history.higherKey(0L);
			boolean known = state.history.containsKey(v) || (oldestKept != null && v < oldestKept);
			if (v <= 0 || !known) {
				invariants.neverWritten.increment();
				invariants.example(String.format("%.1fs %s: read %s, never written", seconds(start), key, value));
				return;
			}
		}
		long floor = Math.max(state.lastRead, state.lastAcknowledged);
		if (v < floor) {
			long[] newer = state.history.get(floor);
			long[] older = state.history.get(v);
			if (newer != null && this.faults.killCouldHaveLost(newer[0], Math.abs(newer[1]), start)) {
				invariants.lostToKill.increment();
			}
			else if (older != null && older[1] < 0) {
				invariants.lateWrites.increment();
				invariants.example(String.format(
						"%.1fs %s: read version %d (its write failed at %.1fs) after %d (acknowledged or read)",
						seconds(start), key, v, seconds(-older[1]), floor));
			}
			else {
				invariants.staleReads.increment();
				invariants.example(String.format("%.1fs %s: read version %d after %d", seconds(start), key, v, floor));
			}
			// Follow the server from here, so one regression is counted once.
			state.lastRead = v;
			state.lastAcknowledged = v;
			return;
		}
		state.lastRead = v;
	}

	private StringRedisTemplate template() {
		return this.target.template();
	}

	private List<String> batch() {
		List<String> batch = new ArrayList<>(MULTI_BATCH);
		while (batch.size() < MULTI_BATCH) {
			String key = pick(this.multi);
			if (!batch.contains(key)) {
				batch.add(key);
			}
		}
		return batch;
	}

	private String pick(List<String> from) {
		return from.get(this.random.nextInt(from.size()));
	}

	private static String value(String key, long version) {
		return key + "#" + version;
	}

	private static long parse(String text) {
		try {
			return Long.parseLong(text);
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	private static byte[] bytes(String text) {
		return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
	}

	private static double seconds(long nanos) {
		return nanos / 1e9;
	}

	private static void sleepNanos(long nanos) {
		try {
			TimeUnit.NANOSECONDS.sleep(nanos);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * A versioned key's writes (version → sent, answered; answered negative when the
	 * write failed) and reads. The history is read by the near-cache readers of other
	 * threads: entries are replaced, never changed in place.
	 */
	private static final class KeyState {

		final ConcurrentSkipListMap<Long, long[]> history = new ConcurrentSkipListMap<>(
				Map.of(0L, new long[] { 0, 0 }));

		long lastAcknowledged;

		long lastRead;

		void sent(long version, long start) {
			this.history.put(version, new long[] { start, Long.MAX_VALUE / 2 });
			if (this.history.size() > HISTORY) {
				this.history.remove(this.history.higherKey(0L));
			}
		}

		void acknowledged(long version, long end) {
			this.history.put(version, new long[] { this.history.get(version)[0], end });
			this.lastAcknowledged = Math.max(this.lastAcknowledged, version);
		}

		void failed(long version, long end) {
			this.history.put(version, new long[] { this.history.get(version)[0], -Math.max(1, end) });
		}

	}

	/**
	 * A counter's last acknowledged value and the increments that failed since (each may
	 * have been applied).
	 */
	private static final class CounterState {

		long lastAcknowledged;

		long lastStart;

		long lastEnd;

		long unacknowledged;

	}

}
