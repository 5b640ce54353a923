package dev.slotwise.internal.nearcache;

import dev.slotwise.internal.observed.Observed;

/**
 * Watches the template reads of covered keys that the near cache did not answer from
 * memory and sent to Redis (a {@code get} that missed, an {@code mGet} of the keys that
 * missed). Hits are not watched: a hit must stay a memory read, and the meters count it.
 */
@FunctionalInterface
public interface RemoteReadObserver {

	/** An observer that watches nothing. */
	RemoteReadObserver NONE = (command, keys) -> Observed.NONE;

	/**
	 * Starts watching a read sent to Redis.
	 * @param command {@code get} or {@code mget}
	 * @param keys how many keys it sends
	 * @return the read's observation, to be ended when it returns
	 */
	Observed start(String command, int keys);

	/**
	 * Hands out one observer per client.
	 */
	@FunctionalInterface
	interface Source {

		/**
		 * Returns the observer of one client.
		 * @param client {@code jedis} or {@code lettuce}
		 * @return the observer
		 */
		RemoteReadObserver forClient(String client);

	}

}
