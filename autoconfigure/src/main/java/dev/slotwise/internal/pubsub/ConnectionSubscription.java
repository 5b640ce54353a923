package dev.slotwise.internal.pubsub;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisSubscribedConnectionException;
import org.springframework.data.redis.connection.Subscription;

/**
 * The subscription of one cluster connection, as Spring Data Redis's {@code subscribe},
 * {@code pSubscribe}, {@code getSubscription}, {@code isSubscribed} and {@code close} see
 * it, made across the cluster by a {@link ClusterPubSub}. Over Jedis, {@code subscribe}
 * blocks until the subscription ends, as Jedis's own does (Spring Data Redis's listener
 * container runs it on its subscription executor and takes the return as the end of
 * listening); over Lettuce it returns once subscribed.
 */
public final class ConnectionSubscription {

	private final ClusterPubSub pubSub;

	private final boolean blocking;

	private volatile @Nullable Subscription current;

	/**
	 * Creates the subscription holder of one connection.
	 * @param pubSub opens the subscription
	 * @param blocking whether {@link #subscribe} blocks until the subscription is closed
	 * (Jedis)
	 */
	public ConnectionSubscription(ClusterPubSub pubSub, boolean blocking) {
		this.pubSub = pubSub;
		this.blocking = blocking;
	}

	/**
	 * Subscribes, as {@code RedisPubSubCommands#subscribe} and {@code pSubscribe} do.
	 * @param listener receives the messages
	 * @param channels the channels
	 * @param patterns the patterns
	 * @param pipelinedOrQueueing whether the connection is pipelined or in a transaction,
	 * which refuses subscriptions
	 */
	public void subscribe(MessageListener listener, byte[][] channels, byte[][] patterns, boolean pipelinedOrQueueing) {
		if (isSubscribed()) {
			throw new RedisSubscribedConnectionException(
					"Connection already subscribed; use the connection Subscription to cancel or add new channels");
		}
		if (pipelinedOrQueueing) {
			throw new InvalidDataAccessApiUsageException("Cannot subscribe in pipeline / transaction mode");
		}
		Subscription subscription = this.pubSub.open(listener);
		// Kept before subscribing: the listener hears of the first names at once, and
		// Spring Data Redis's container then adds the rest through getSubscription().
		this.current = subscription;
		try {
			subscription.pSubscribe(patterns);
			subscription.subscribe(channels);
		}
		catch (RuntimeException ex) {
			subscription.close();
			this.current = null;
			throw ex;
		}
		if (this.blocking) {
			try {
				ClusterPubSub.awaitClosed(subscription);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				subscription.close();
			}
		}
	}

	/**
	 * Returns the subscription.
	 * @return the current subscription, or {@code null} when none was made
	 */
	public @Nullable Subscription get() {
		return this.current;
	}

	/**
	 * Tells whether the connection is subscribed.
	 * @return whether a subscription is open
	 */
	public boolean isSubscribed() {
		Subscription subscription = this.current;
		return subscription != null && subscription.isAlive();
	}

	/**
	 * Closes the subscription, if any, as closing the connection does.
	 */
	public void close() {
		Subscription subscription = this.current;
		this.current = null;
		if (subscription != null) {
			subscription.close();
		}
	}

}
