package dev.slotwise.internal.topology;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Cross-slot {@code multiGet} calls from several threads until stopped, each checked
 * against the values written before: a call either returns every value right or fails.
 * Records when calls fail and succeed, relative to the start, to measure recovery.
 */
final class OutageLoad implements AutoCloseable {

	private final StringRedisTemplate template;

	private final List<String> keys;

	private final Map<String, String> expected;

	private final long start = System.nanoTime();

	private final AtomicBoolean stop = new AtomicBoolean();

	private final ExecutorService threads;

	final AtomicLong correct = new AtomicLong();

	final AtomicLong failed = new AtomicLong();

	/**
	 * Calls that returned a value other than the one written (a null included): must stay
	 * empty.
	 */
	final ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();

	/** Every failure's type and message, the first of each kind kept. */
	final Map<String, Throwable> failureKinds = new java.util.concurrent.ConcurrentHashMap<>();

	/**
	 * When the last call that failed had started, in nanoseconds since the load started,
	 * or -1.
	 */
	final AtomicLong lastFailedCallStart = new AtomicLong(-1);

	/**
	 * When the last call that returned right values had started, in nanoseconds since the
	 * load started, or -1.
	 */
	final AtomicLong lastCorrectCallStart = new AtomicLong(-1);

	private final boolean mixed;

	OutageLoad(StringRedisTemplate template, String prefix, int keyCount, int threadCount) {
		this(template, prefix, keyCount, threadCount, false);
	}

	/**
	 * Starts the load.
	 * @param mixed whether each call is, at random, a {@code multiGet} of all keys, a
	 * {@code get} or a {@code set} of one key (the value written is the one expected),
	 * instead of always a {@code multiGet}
	 */
	OutageLoad(StringRedisTemplate template, String prefix, int keyCount, int threadCount, boolean mixed) {
		this.template = template;
		this.mixed = mixed;
		this.keys = new ArrayList<>(keyCount);
		this.expected = new LinkedHashMap<>();
		for (int i = 0; i < keyCount; i++) {
			String key = prefix + i;
			this.keys.add(key);
			this.expected.put(key, "v:" + key);
		}
		template.opsForValue().multiSet(this.expected);
		this.threads = Executors.newFixedThreadPool(threadCount);
		for (int t = 0; t < threadCount; t++) {
			this.threads.execute(this::run);
		}
	}

	List<String> keys() {
		return this.keys;
	}

	private void run() {
		List<String> values = List.copyOf(this.expected.values());
		while (!this.stop.get()) {
			long callStart = System.nanoTime() - this.start;
			try {
				List<String> got;
				int roll = this.mixed ? java.util.concurrent.ThreadLocalRandom.current().nextInt(3) : 0;
				if (roll == 0) {
					got = this.template.opsForValue().multiGet(this.keys);
				}
				else {
					int index = java.util.concurrent.ThreadLocalRandom.current().nextInt(this.keys.size());
					String key = this.keys.get(index);
					if (roll == 1) {
						this.template.opsForValue().set(key, values.get(index));
					}
					String value = this.template.opsForValue().get(key);
					if (!Objects.equals(value, values.get(index))) {
						this.wrong.add("key " + key + ": " + value);
						continue;
					}
					this.correct.incrementAndGet();
					this.lastCorrectCallStart.accumulateAndGet(callStart, Math::max);
					continue;
				}
				boolean right = true;
				for (int i = 0; i < values.size() && right; i++) {
					if (got == null || !Objects.equals(got.get(i), values.get(i))) {
						this.wrong.add("key " + this.keys.get(i) + ": " + ((got == null) ? "no result" : got.get(i)));
						right = false;
					}
				}
				if (right) {
					this.correct.incrementAndGet();
					this.lastCorrectCallStart.accumulateAndGet(callStart, Math::max);
				}
			}
			catch (RuntimeException ex) {
				this.failed.incrementAndGet();
				this.lastFailedCallStart.accumulateAndGet(callStart, Math::max);
				this.failureKinds.putIfAbsent(ex.getClass().getName(), ex);
			}
		}
	}

	/**
	 * Returns the time since the load started.
	 * @return the elapsed time
	 */
	Duration elapsed() {
		return Duration.ofNanos(System.nanoTime() - this.start);
	}

	/**
	 * Sleeps until the load has run for the given time.
	 * @param sinceStart the time since the start
	 * @throws InterruptedException when interrupted
	 */
	void sleepUntil(Duration sinceStart) throws InterruptedException {
		long remaining = sinceStart.toNanos() - (System.nanoTime() - this.start);
		if (remaining > 0) {
			TimeUnit.NANOSECONDS.sleep(remaining);
		}
	}

	@Override
	public void close() throws InterruptedException {
		this.stop.set(true);
		this.threads.shutdown();
		if (!this.threads.awaitTermination(60, TimeUnit.SECONDS)) {
			this.threads.shutdownNow();
			throw new IllegalStateException("Load threads still running 60 s after stop");
		}
	}

}
