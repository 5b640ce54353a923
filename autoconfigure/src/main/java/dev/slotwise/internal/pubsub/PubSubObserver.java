package dev.slotwise.internal.pubsub;

/**
 * Sees what cluster subscriptions do. Meters implement it, one per client; the subscriptions know nothing of
 * Micrometer. Called from readers and from the subscriptions' own threads: implementations must be cheap,
 * thread-safe and must not throw.
 */
public interface PubSubObserver {

	/**
	 * An observer that ignores everything.
	 */
	PubSubObserver NONE = new PubSubObserver() {
	};

	/**
	 * Hands out one client's observer ({@code jedis}, {@code lettuce}), so that the auto-configuration asks for this
	 * type rather than the meters' and an application without Micrometer never loads them.
	 */
	@FunctionalInterface
	interface Source {

		/**
		 * Returns the observer of a client.
		 * @param client the client tag
		 * @return the observer, the same for every call with the same client
		 */
		PubSubObserver forClient(String client);

	}

	/**
	 * The number of names subscribed on a node changed.
	 * @param node the node, {@code host:port}
	 * @param sharded whether the names are sharded channels
	 * @param delta how many were added (positive) or removed (negative)
	 */
	default void subscriptions(String node, boolean sharded, int delta) {
	}

	/**
	 * Names were subscribed again after a topology change, a lost connection or a slot migration (not at the
	 * application's request).
	 * @param sharded whether the names are sharded channels
	 * @param count how many
	 */
	default void resubscribed(boolean sharded, int count) {
	}

	/**
	 * A message was handed to the listener.
	 * @param node the node it came from, {@code host:port}
	 * @param sharded whether it came on a sharded channel
	 */
	default void received(String node, boolean sharded) {
	}

}
