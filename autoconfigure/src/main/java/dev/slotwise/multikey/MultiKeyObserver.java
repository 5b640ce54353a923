package dev.slotwise.multikey;

/**
 * Sees what the multi-key engine does: each cross-slot call it runs and each redirect it follows. Meters implement
 * it, one per client; the engine knows nothing of Micrometer.
 * <p>
 * Called once per call (and once per redirected command) from caller and executor threads at once, so
 * implementations must be cheap, thread-safe and must not throw. Same-slot calls, which Spring Data Redis serves
 * with one plain command, are not seen.
 */
public interface MultiKeyObserver {

	/** Redirect type of a {@code MOVED} reply. */
	String MOVED = "moved";

	/** Redirect type of an {@code ASK} reply. */
	String ASK = "ask";

	/** Redirect type of a {@code TRYAGAIN} reply (a slot being migrated). */
	String TRYAGAIN = "tryagain";

	/**
	 * An observer that ignores everything.
	 */
	MultiKeyObserver NONE = new MultiKeyObserver() {
	};

	/**
	 * Called when a cross-slot call ends.
	 * @param command {@code mget}, {@code mset}, {@code del}, {@code unlink} or {@code exists}
	 * @param keys the number of keys of the call, duplicates included
	 * @param success whether the call returned a result rather than throwing
	 * @param durationNanos how long the call took on the caller's thread
	 */
	default void called(String command, int keys, boolean success, long durationNanos) {
	}

	/**
	 * Called for each command the server redirected, before the engine sends it again.
	 * @param type {@link #MOVED}, {@link #ASK} or {@link #TRYAGAIN}
	 */
	default void redirected(String type) {
	}

}
