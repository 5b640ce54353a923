package dev.slotwise.internal.pubsub;

import java.util.function.Supplier;

import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.Subscription;

/**
 * Opens cluster subscriptions over one client of a running connection factory:
 * {@link #subscribe} for channels and patterns (keyspace and keyevent ones on every
 * master), {@link #subscribeSharded} for sharded channels. Created per factory start by
 * {@link JedisPubSubSupport} or {@link LettucePubSubSupport}.
 */
public final class ClusterPubSub {

	private final PubSubRuntime runtime;

	private final Supplier<NodeLinks> classicLinks;

	private final Supplier<NodeLinks> shardedLinks;

	private final PubSubObserver observer;

	ClusterPubSub(PubSubRuntime runtime, Supplier<NodeLinks> classicLinks, Supplier<NodeLinks> shardedLinks,
			PubSubObserver observer) {
		this.runtime = runtime;
		this.classicLinks = classicLinks;
		this.shardedLinks = shardedLinks;
		this.observer = observer;
	}

	/**
	 * Opens a subscription to channels and patterns across the cluster (keyspace and
	 * keyevent ones on every master), holding nothing yet: the caller keeps it where the
	 * application finds it, then subscribes. The listener, when it is also a
	 * {@code SubscriptionListener}, hears of each name once it is subscribed.
	 * @param listener receives the messages
	 * @return the subscription, which the caller closes
	 */
	public Subscription open(MessageListener listener) {
		return open(listener, false, this.classicLinks.get());
	}

	/**
	 * Opens a subscription to sharded channels ({@code SSUBSCRIBE}), each on the master
	 * owning its slot, following slot migrations and failovers; add channels with
	 * {@link Subscription#subscribe(byte[]...)}.
	 * @param listener receives the messages
	 * @return the subscription, which the caller closes
	 */
	public Subscription openSharded(MessageListener listener) {
		return open(listener, true, this.shardedLinks.get());
	}

	/**
	 * Blocks until a subscription this object opened is closed.
	 * @param subscription the subscription
	 * @throws InterruptedException when interrupted first
	 */
	public static void awaitClosed(Subscription subscription) throws InterruptedException {
		if (subscription instanceof ClusterSubscription cluster) {
			cluster.awaitClosed();
		}
	}

	private ClusterSubscription open(MessageListener listener, boolean sharded, NodeLinks links) {
		if (listener == null) {
			throw new IllegalArgumentException("'listener' must not be null");
		}
		ClusterSubscription subscription = new ClusterSubscription(listener, sharded, links, this.runtime,
				this.observer);
		subscription.start();
		return subscription;
	}

}
