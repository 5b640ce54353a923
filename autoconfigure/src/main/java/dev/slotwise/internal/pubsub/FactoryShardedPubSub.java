package dev.slotwise.internal.pubsub;

import java.util.function.BiFunction;
import java.util.function.Supplier;

import dev.slotwise.pubsub.ShardedPubSub;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.Subscription;

/**
 * A {@link ShardedPubSub} over a connection factory: one {@link ClusterPubSub} per
 * started client (a restarted factory has a new client), publishing through the client's
 * own {@code SPUBLISH}, which routes by the channel's slot and follows redirects.
 */
final class FactoryShardedPubSub implements ShardedPubSub {

	private final Supplier<Object> client;

	private final Supplier<ClusterPubSub> pubSubs;

	private final BiFunction<byte[], byte[], Long> publisher;

	private @Nullable Object boundTo;

	private @Nullable ClusterPubSub pubSub;

	/**
	 * @param client returns the running client, to tell a restart
	 * @param pubSubs creates the subscriptions of the running client
	 * @param publisher sends {@code SPUBLISH}
	 */
	FactoryShardedPubSub(Supplier<Object> client, Supplier<ClusterPubSub> pubSubs,
			BiFunction<byte[], byte[], Long> publisher) {
		this.client = client;
		this.pubSubs = pubSubs;
		this.publisher = publisher;
	}

	@Override
	public long publish(byte[] channel, byte[] message) {
		if (channel == null || message == null) {
			throw new IllegalArgumentException("'channel' and 'message' must not be null");
		}
		return this.publisher.apply(channel, message);
	}

	@Override
	public Subscription subscribe(MessageListener listener, byte[]... channels) {
		Subscription subscription = pubSub().openSharded(listener);
		try {
			subscription.subscribe(channels);
		}
		catch (RuntimeException ex) {
			subscription.close();
			throw ex;
		}
		return subscription;
	}

	private synchronized ClusterPubSub pubSub() {
		Object client = this.client.get();
		ClusterPubSub pubSub = this.pubSub;
		if (pubSub == null || client != this.boundTo) {
			pubSub = this.pubSubs.get();
			this.pubSub = pubSub;
			this.boundTo = client;
		}
		return pubSub;
	}

}
