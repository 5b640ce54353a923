package dev.slotwise.internal.topology;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The state of a Lettuce client's failover watch ({@link SamplingRedisClusterClient}):
 * whether one runs, when it started, when the last one ran out, and when a reconnect to a
 * master last failed. The client asks the nodes; this says when.
 * <p>
 * A watch asks a replica of the failing master every {@value #WATCH_INTERVAL_MILLIS} ms
 * once a view shows the failure, and before that one random node every
 * {@value #SUSPICION_INTERVAL_MILLIS} ms for as long as reconnects to the master keep
 * failing. It ends when no failover is under way and no reconnect failed for
 * {@value #DEMAND_WINDOW_MILLIS} ms, or after {@value #WATCH_LIMIT_MILLIS} ms, after
 * which no watch starts for the cool-down (the cache time-to-live) unless a refresh shows
 * a change.
 */
final class FailoverWatch {

	/** How often the failover watch asks a replica of the failing master. */
	static final long WATCH_INTERVAL_MILLIS = 250;

	/**
	 * How often the failover watch asks a random node while only callers, not the
	 * cluster, see a failure.
	 */
	static final long SUSPICION_INTERVAL_MILLIS = 500;

	/**
	 * The longest a failover watch lasts: the cluster promotes a replica within about a
	 * second of agreeing that its master failed, which itself follows the failure within
	 * about the cluster's node timeout. A failover that does not come by then (no replica
	 * able to take over) is left to the paced refreshes.
	 */
	static final long WATCH_LIMIT_MILLIS = 5000;

	/**
	 * How long after the last failed reconnect to a master the failover watch keeps
	 * asking while the cluster shows nothing: Lettuce's reconnect attempts back off to a
	 * second and more between attempts.
	 */
	static final long DEMAND_WINDOW_MILLIS = 2000;

	private final long coolDownNanos;

	/** Whether a watch is scheduled or running. */
	private final AtomicBoolean watching = new AtomicBoolean();

	/** {@link System#nanoTime()} when the current watch started. */
	private volatile long startedAt;

	/** {@link System#nanoTime()} before which no watch starts: the last one ran out. */
	private volatile long coolDownUntil;

	private volatile boolean coolingDown;

	/**
	 * {@link System#nanoTime()} of the last failed reconnect to a master; valid when
	 * {@link #demandSeen}.
	 */
	private volatile long demandedAt;

	private volatile boolean demandSeen;

	/**
	 * @param coolDownNanos how long no watch starts after one ran out, unless a refresh
	 * shows a change
	 */
	FailoverWatch(long coolDownNanos) {
		this.coolDownNanos = coolDownNanos;
	}

	/** Whether a watch is scheduled or running: the paced refreshes then step aside. */
	boolean active() {
		return this.watching.get();
	}

	/** A reconnect to a master that serves slots failed now. */
	void demand(long now) {
		this.demandedAt = now;
		this.demandSeen = true;
	}

	/** Whether a reconnect to a master failed within the demand window. */
	boolean demandedRecently(long now) {
		return this.demandSeen && now - this.demandedAt < TimeUnit.MILLISECONDS.toNanos(DEMAND_WINDOW_MILLIS);
	}

	/**
	 * Starts a watch unless one runs or the last one ran out within the cool-down.
	 * @return whether the caller started it and must schedule its first step
	 */
	boolean tryStart(long now) {
		if (this.coolingDown && now - this.coolDownUntil < 0) {
			return false;
		}
		if (!this.watching.compareAndSet(false, true)) {
			return false;
		}
		this.startedAt = now;
		return true;
	}

	/**
	 * Ends the running watch when it lasted its limit, starting the cool-down.
	 * @return whether it ran out
	 */
	boolean ranOut(long now) {
		if (now - this.startedAt < TimeUnit.MILLISECONDS.toNanos(WATCH_LIMIT_MILLIS)) {
			return false;
		}
		this.coolDownUntil = now + this.coolDownNanos;
		this.coolingDown = true;
		this.watching.set(false);
		return true;
	}

	/** A refresh found a change: a watch may start again at once. */
	void changed() {
		this.coolingDown = false;
	}

	/** Ends the running watch (nothing under way, or the client shuts down). */
	void stop() {
		this.watching.set(false);
	}

	/** The delay before the next step: shorter once the cluster shows the failure. */
	static long delayMillis(boolean underWay) {
		return underWay ? WATCH_INTERVAL_MILLIS : SUSPICION_INTERVAL_MILLIS;
	}

}
