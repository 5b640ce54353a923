/**
 * Sharded pub/sub on a Redis Cluster ({@code SSUBSCRIBE}/{@code SPUBLISH}, Redis 7+):
 * {@link ShardedPubSub} publishes and subscribes, {@link ShardedMessageListenerContainer}
 * dispatches {@link ShardedChannelTopic} messages to {@code MessageListener}s as Spring
 * Data Redis's {@code RedisMessageListenerContainer} does for channels and patterns.
 * Subscriptions are made on the master owning each channel's slot and follow slot
 * migrations and failovers.
 */
@NullMarked
package dev.slotwise.pubsub;

import org.jspecify.annotations.NullMarked;
