package dev.slotwise.internal.pubsub;

import dev.slotwise.internal.observed.Observers;

/**
 * Sees what cluster subscriptions do. Meters implement it, one per client; the
 * subscriptions know nothing of Micrometer. Called from readers and from the
 * subscriptions' own threads: implementations must be cheap, thread-safe and must not
 * throw.
 */
public interface PubSubObserver {

	/**
	 * An observer that ignores everything.
	 */
	PubSubObserver NONE = new PubSubObserver() {
	};

	/**
	 * Hands out one client's observer: see {@link Observers.Source}.
	 */
	@FunctionalInterface
	interface Source extends Observers.Source<PubSubObserver> {

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
	 * Names were subscribed again after a topology change, a lost connection or a slot
	 * migration (not at the application's request).
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
