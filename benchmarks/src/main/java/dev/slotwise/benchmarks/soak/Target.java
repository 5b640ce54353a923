package dev.slotwise.benchmarks.soak;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One application under test (a Spring Boot context over one client, Slotwise on or off)
 * and what its workers observed: operations and errors per second, the errors themselves,
 * the invariant violations, and how long it took to recover from each fault. Workers
 * record concurrently; the report reads after they stopped.
 */
final class Target {

	/**
	 * Consecutive successful operations, all started after a fault ended, that count as
	 * recovered.
	 */
	static final int RECOVERED_AFTER = 20;

	final String name;

	final String client;

	final boolean slotwise;

	final String clientName;

	final String keyPrefix;

	@Nullable ConfigurableApplicationContext context;

	@Nullable StringRedisTemplate template;

	@Nullable ReactiveStringRedisTemplate reactive;

	final AtomicLongArray opsPerSecond;

	final AtomicLongArray errorsPerSecond;

	final LongAdder operations = new LongAdder();

	final Invariants invariants = new Invariants();

	/**
	 * What the near-cache reader of this application saw (Slotwise applications only).
	 */
	final NearCacheFigures nearCache = new NearCacheFigures();

	/**
	 * Every error: start and end (nanoseconds since the run started), for the
	 * fault-window check.
	 */
	private final List<long[]> errorTimes = new ArrayList<>();

	/** Errors by operation and exception type. */
	private final Map<String, Long> errorKinds = new TreeMap<>();

	private final List<Recovery> open = new ArrayList<>();

	final List<Recovery> recoveries = new ArrayList<>();

	long threadsAtStart;

	long connectionsAtStart;

	long connectionsAtEnd;

	Target(String client, boolean slotwise, int seconds) {
		this.client = client;
		this.slotwise = slotwise;
		this.name = client + (slotwise ? "-slotwise" : "-control");
		this.clientName = "soak-" + this.name;
		this.keyPrefix = "soak:" + this.name;
		this.opsPerSecond = new AtomicLongArray(seconds);
		this.errorsPerSecond = new AtomicLongArray(seconds);
	}

	StringRedisTemplate template() {
		StringRedisTemplate template = this.template;
		if (template == null) {
			throw new IllegalStateException(this.name + " is not started");
		}
		return template;
	}

	ConfigurableApplicationContext context() {
		ConfigurableApplicationContext context = this.context;
		if (context == null) {
			throw new IllegalStateException(this.name + " is not started");
		}
		return context;
	}

	ReactiveStringRedisTemplate reactive() {
		ReactiveStringRedisTemplate reactive = this.reactive;
		if (reactive == null) {
			throw new IllegalStateException(this.name + " has no reactive template (Lettuce only)");
		}
		return reactive;
	}

	void succeeded(long start, long end) {
		this.operations.increment();
		this.opsPerSecond.incrementAndGet(second(end));
		synchronized (this.open) {
			for (Iterator<Recovery> it = this.open.iterator(); it.hasNext();) {
				Recovery recovery = it.next();
				long faultEnd = recovery.fault.endNanos;
				if (faultEnd != 0 && start >= faultEnd && ++recovery.successes >= RECOVERED_AFTER) {
					recovery.recoveredNanos = end - faultEnd;
					it.remove();
				}
			}
		}
	}

	void failed(String operation, long start, long end, Throwable failure) {
		this.operations.increment();
		this.opsPerSecond.incrementAndGet(second(end));
		this.errorsPerSecond.incrementAndGet(second(end));
		synchronized (this.open) {
			for (Recovery recovery : this.open) {
				recovery.successes = 0;
				recovery.errors++;
			}
			this.errorTimes.add(new long[] { start, end });
			this.errorKinds.merge(operation + ": " + describe(failure), 1L, Long::sum);
		}
	}

	/** Starts watching for this application's recovery from a fault that just began. */
	void watch(FaultLog.Fault fault) {
		Recovery recovery = new Recovery(fault);
		synchronized (this.open) {
			this.open.add(recovery);
			this.recoveries.add(recovery);
		}
	}

	List<long[]> errorTimes() {
		synchronized (this.open) {
			return List.copyOf(this.errorTimes);
		}
	}

	Map<String, Long> errorKinds() {
		synchronized (this.open) {
			return new TreeMap<>(this.errorKinds);
		}
	}

	private int second(long nanos) {
		return (int) Math.min(this.opsPerSecond.length() - 1, Math.max(0, nanos / 1_000_000_000L));
	}

	/**
	 * The exception's type and the first words of its message, through the causes Spring
	 * Data wraps around it.
	 */
	static String describe(Throwable failure) {
		Throwable root = failure;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		String message = String.valueOf(root.getMessage()).replaceAll("[0-9]+", "N");
		if (message.length() > 60) {
			message = message.substring(0, 60) + "…";
		}
		String outer = failure.getClass().getSimpleName();
		return (root == failure) ? outer + " " + message
				: outer + " ← " + root.getClass().getSimpleName() + " " + message;
	}

	/** The near-cache reader's figures. */
	static final class NearCacheFigures {

		/** Values read and checked. */
		final LongAdder reads = new LongAdder();

		/** Keys memory held when their read began: about the hits. */
		final LongAdder hits = new LongAdder();

		/** Reads that failed (faults). */
		final LongAdder errors = new LongAdder();

		/** Older values explained by a master killed right after the newer write. */
		final LongAdder excusedKill = new LongAdder();

		/**
		 * Older values written by a call that reported failure (they may have landed
		 * late).
		 */
		final LongAdder excusedLate = new LongAdder();

		/**
		 * The longest a read started after a newer write's acknowledgement and still
		 * returned the older value.
		 */
		final LongAccumulator worstLagNanos = new LongAccumulator(Math::max, 0);

	}

	/** How one application came back after one fault. */
	static final class Recovery {

		final FaultLog.Fault fault;

		int successes;

		long errors;

		/**
		 * From the fault's end to the last of {@link #RECOVERED_AFTER} consecutive
		 * successes; -1 until then.
		 */
		volatile long recoveredNanos = -1;

		Recovery(FaultLog.Fault fault) {
			this.fault = fault;
		}

	}

}
