package dev.slotwise.internal.topology;

import java.time.Duration;

import dev.slotwise.internal.observed.Observers;

/**
 * Sees what a Slotwise topology provider does: each node asked during a refresh, and each
 * lookup served from the cache or not. Meters implement it; the topology code knows
 * nothing of Micrometer.
 * <p>
 * Implementations are called on the hot path ({@link #lookup(boolean)} on every topology
 * lookup) and from several threads at once, so they must be cheap, thread-safe and must
 * not throw.
 */
public interface TopologyObserver {

	/**
	 * An observer that ignores everything.
	 */
	TopologyObserver NONE = new TopologyObserver() {
	};

	/**
	 * Hands out one client's observer: see {@link Observers.Source}.
	 */
	@FunctionalInterface
	interface Source extends Observers.Source<TopologyObserver> {

	}

	/**
	 * Called once per node asked for the topology during a refresh.
	 * @param node the node asked, as {@code host:port}
	 * @param success whether the node answered with a usable topology
	 * @param duration how long asking took (for Lettuce, the whole refresh the node took
	 * part in)
	 */
	default void refreshed(String node, boolean success, Duration duration) {
	}

	/**
	 * Called on every topology lookup.
	 * @param hit {@code true} when a fresh cached topology was served without work,
	 * {@code false} when the cache was empty, expired or invalidated
	 */
	default void lookup(boolean hit) {
	}

}
