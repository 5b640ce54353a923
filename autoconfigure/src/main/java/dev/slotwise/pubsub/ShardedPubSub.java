package dev.slotwise.pubsub;

import java.nio.charset.StandardCharsets;

import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.Subscription;

/**
 * Sharded pub/sub over a Slotwise cluster connection factory: {@code SPUBLISH} routed to
 * the master owning the channel's slot, and subscriptions ({@code SSUBSCRIBE}) made there
 * and made again when the slot migrates (the server then unsubscribes the channel) or its
 * master fails over. Slotwise auto-configures one; most applications use it through
 * {@link ShardedMessageListenerContainer}.
 */
public interface ShardedPubSub {

	/**
	 * Publishes a message with {@code SPUBLISH}.
	 * @param channel the sharded channel
	 * @param message the message
	 * @return the number of subscribers that received it (on the channel's node)
	 */
	long publish(byte[] channel, byte[] message);

	/**
	 * Publishes a UTF-8 message with {@code SPUBLISH}.
	 * @param channel the sharded channel
	 * @param message the message
	 * @return the number of subscribers that received it (on the channel's node)
	 */
	default long publish(String channel, String message) {
		return publish(channel.getBytes(StandardCharsets.UTF_8), message.getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * Subscribes sharded channels. The listener is called on the client's reader thread
	 * (Lettuce's event loop, or a Slotwise reader thread over Jedis): hand long work to
	 * an executor, as {@link ShardedMessageListenerContainer} does when given one.
	 * Channels are added and removed through the returned subscription; it ends when its
	 * last channel is removed or when it is closed.
	 * @param listener receives the messages
	 * @param channels the channels
	 * @return the subscription, which the caller closes
	 * @throws org.springframework.data.redis.RedisConnectionFailureException when no
	 * master can be subscribed on
	 */
	Subscription subscribe(MessageListener listener, byte[]... channels);

}
