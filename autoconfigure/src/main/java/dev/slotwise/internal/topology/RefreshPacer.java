package dev.slotwise.internal.topology;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Decides when a topology refresh may start: never sooner than the minimum interval after
 * the start of the previous one, and, after refreshes that failed, only after a back-off
 * that doubles with each consecutive failure up to a cap.
 * <p>
 * This is what keeps a client from turning an outage into a refresh storm: every failed
 * or redirected call may mark the topology stale, but however many do, a client starts at
 * most one refresh per interval. Single-flight (one refresh running at a time) is the
 * caller's job; the pacer only spaces the starts.
 */
final class RefreshPacer {

	private final long minIntervalNanos;

	private final long maxBackoffNanos;

	private boolean started;

	private long lastStart;

	private int failures;

	private @Nullable Throwable lastFailure;

	private long lastFailureAt;

	/**
	 * @param minInterval the least time between two starts
	 * @param maxBackoff the longest wait after failures; the minimum interval when
	 * shorter
	 */
	RefreshPacer(Duration minInterval, Duration maxBackoff) {
		this.minIntervalNanos = minInterval.toNanos();
		this.maxBackoffNanos = Math.max(this.minIntervalNanos, maxBackoff.toNanos());
	}

	/**
	 * Claims the right to start a refresh now, if the interval (or back-off) since the
	 * last start has passed.
	 * @param now {@link System#nanoTime()}
	 * @return whether the caller may refresh now
	 */
	synchronized boolean tryStart(long now) {
		if (!mayStart(now)) {
			return false;
		}
		this.started = true;
		this.lastStart = now;
		return true;
	}

	/**
	 * Tells whether a refresh could start now, without claiming it.
	 * @param now {@link System#nanoTime()}
	 * @return whether {@link #tryStart(long)} would succeed now
	 */
	synchronized boolean mayStart(long now) {
		return !this.started || now - this.lastStart >= currentWait();
	}

	/** Records a refresh that succeeded: the back-off starts over. */
	synchronized void succeeded() {
		this.failures = 0;
		this.lastFailure = null;
	}

	/**
	 * Records a refresh that failed: the wait before the next one doubles.
	 * @param failure why it failed
	 * @return whether this is the first failure since the last success (to log it once)
	 */
	synchronized boolean failed(Throwable failure) {
		this.failures++;
		this.lastFailure = failure;
		this.lastFailureAt = System.nanoTime();
		return this.failures == 1;
	}

	/**
	 * Returns the failure of the last refresh, if it failed.
	 * @return the failure, or {@code null} when the last refresh succeeded or none ran
	 */
	synchronized @Nullable Throwable lastFailure() {
		return this.lastFailure;
	}

	/**
	 * Describes when the last failure happened and when the next refresh may start, for
	 * messages.
	 * @param now {@link System#nanoTime()}
	 * @return e.g. {@code "3 refreshes failed, the last 120 ms ago; next in 880 ms"}
	 */
	synchronized String describe(long now) {
		long next = Math.max(0, this.lastStart + currentWait() - now);
		return "%d refresh(es) failed in a row, the last %d ms ago; next attempt in %d ms".formatted(this.failures,
				Duration.ofNanos(now - this.lastFailureAt).toMillis(), Duration.ofNanos(next).toMillis());
	}

	private long currentWait() {
		if (this.failures == 0) {
			return this.minIntervalNanos;
		}
		// min × 2^(failures - 1), capped; the shift is bounded so it cannot overflow.
		long wait = this.minIntervalNanos << Math.min(this.failures - 1, 20);
		return (wait < 0 || wait > this.maxBackoffNanos) ? this.maxBackoffNanos : wait;
	}

}
