package dev.slotwise.internal.nearcache;

/**
 * What a near cache reports, for meters. Called on the threads of the application's reads
 * and of the invalidation connections: implementations must be fast and must not block.
 */
public interface NearCacheObserver {

	/**
	 * An observer that ignores everything.
	 */
	NearCacheObserver NONE = new NearCacheObserver() {
	};

	/**
	 * A read of a cached key was answered: from memory or from Redis.
	 * @param hit whether it came from memory
	 * @param count how many keys
	 */
	default void read(boolean hit, int count) {
	}

	/**
	 * Entries were dropped because the cache was full or they outlived the time-to-live.
	 * @param cause {@code size} or {@code expired}
	 */
	default void evicted(String cause) {
	}

	/**
	 * A node said keys changed.
	 * @param keys how many keys the message named ({@code 0} for a message that
	 * invalidates everything)
	 */
	default void invalidations(int keys) {
	}

	/**
	 * Slots were flushed (their entries dropped and their reads in flight disowned).
	 * @param cause why: {@code link-lost}, {@code topology}, {@code server},
	 * {@code clear}, {@code restart}
	 * @param entries how many entries were dropped
	 */
	default void flushed(String cause, int entries) {
	}

	/**
	 * Hands the observer the cache, for gauges (entries, bytes, entries per master, links
	 * up).
	 * @param cache the cache
	 */
	default void bind(NearCache cache) {
	}

	/**
	 * Hands the observer the runtime once it exists, for gauges that need the cluster's
	 * view (entries per master, invalidation links).
	 * @param runtime the runtime
	 */
	default void bind(NearCacheRuntime runtime) {
	}

}
