package dev.slotwise.pubsub;

import java.util.Objects;

import org.springframework.data.redis.listener.Topic;
import org.springframework.util.Assert;

/**
 * A sharded channel ({@code SSUBSCRIBE}, {@code SPUBLISH}): the master owning the
 * channel's hash slot carries its messages, so a channel costs one node rather than every
 * node of the cluster. Hash tags apply, as for keys.
 */
public final class ShardedChannelTopic implements Topic {

	private final String channel;

	/**
	 * Creates a topic.
	 * @param channel the channel name, not empty
	 */
	public ShardedChannelTopic(String channel) {
		Assert.hasText(channel, "'channel' must not be empty");
		this.channel = channel;
	}

	/**
	 * Creates a topic.
	 * @param channel the channel name, not empty
	 * @return the topic
	 */
	public static ShardedChannelTopic of(String channel) {
		return new ShardedChannelTopic(channel);
	}

	@Override
	public String getTopic() {
		return this.channel;
	}

	@Override
	public boolean equals(Object other) {
		return this == other || (other instanceof ShardedChannelTopic topic && this.channel.equals(topic.channel));
	}

	@Override
	public int hashCode() {
		return Objects.hashCode(this.channel);
	}

	@Override
	public String toString() {
		return "ShardedChannelTopic[" + this.channel + "]";
	}

}
