package dev.slotwise.internal.topology;

import java.time.Duration;

/**
 * Sees what a Slotwise topology provider does: each node asked during a refresh, and each lookup served from the
 * cache or not. Meters implement it; the topology code knows nothing of Micrometer.
 * <p>
 * Implementations are called on the hot path ({@link #lookup(boolean)} on every topology lookup) and from several
 * threads at once, so they must be cheap, thread-safe and must not throw.
 */
public interface TopologyObserver {

	/**
	 * An observer that ignores everything.
	 */
	TopologyObserver NONE = new TopologyObserver() {
	};

	/**
	 * Hands out one client's observer ({@code jedis}, {@code lettuce}). The meters implement it, and the
	 * auto-configuration asks for this type rather than theirs, so that an application without Micrometer never loads
	 * a class that needs it.
	 */
	@FunctionalInterface
	interface Source {

		/**
		 * Returns the observer of a client.
		 * @param client the client tag
		 * @return the observer, the same for every call with the same client
		 */
		TopologyObserver forClient(String client);

	}

	/**
	 * Called once per node asked for the topology during a refresh.
	 * @param node the node asked, as {@code host:port}
	 * @param success whether the node answered with a usable topology
	 * @param duration how long asking took (for Lettuce, the whole refresh the node took part in)
	 */
	default void refreshed(String node, boolean success, Duration duration) {
	}

	/**
	 * Called on every topology lookup.
	 * @param hit {@code true} when a fresh cached topology was served without work, {@code false} when the cache was
	 * empty, expired or invalidated
	 */
	default void lookup(boolean hit) {
	}

}
