package dev.slotwise.internal.multikey;

import dev.slotwise.internal.routing.RedirectKind;

/**
 * Sees what the multi-key engine does: each cross-slot call it runs and each redirect it follows. Meters implement
 * it, one per client; the engine knows nothing of Micrometer.
 * <p>
 * Called once per call (and once per redirected command) from caller and executor threads at once, so
 * implementations must be cheap, thread-safe and must not throw. Same-slot calls, which Spring Data Redis serves
 * with one plain command, are not seen.
 */
public interface MultiKeyObserver {

	/**
	 * An observer that ignores everything.
	 */
	MultiKeyObserver NONE = new MultiKeyObserver() {
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
		MultiKeyObserver forClient(String client);

	}

	/**
	 * Called when a cross-slot call ends.
	 * @param command the command
	 * @param keys the number of keys of the call, duplicates included
	 * @param success whether the call returned a result rather than throwing
	 * @param durationNanos how long the call took on the caller's thread
	 */
	default void called(MultiKeyCommand command, int keys, boolean success, long durationNanos) {
	}

	/**
	 * Called for each command the server redirected, before the engine sends it again.
	 * @param kind the kind of redirect
	 */
	default void redirected(RedirectKind kind) {
	}

}
