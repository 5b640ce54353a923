/**
 * Pub/sub across a Redis Cluster: keyspace and keyevent subscriptions on every master,
 * sharded channels ({@code SSUBSCRIBE}) on the master owning each channel's slot, both
 * following failovers, scale-out, restarts and slot migrations. One
 * {@link dev.slotwise.internal.pubsub.ClusterSubscription} fans out to one pub/sub
 * connection per node it needs, over Jedis or Lettuce.
 * <p>
 * Internal to Slotwise: not API. Types here may change or go in any release, public or
 * not; applications use {@code RedisMessageListenerContainer},
 * {@code dev.slotwise.pubsub} and the {@code slotwise.pubsub.*} properties.
 */
@NullMarked
package dev.slotwise.internal.pubsub;

import org.jspecify.annotations.NullMarked;
