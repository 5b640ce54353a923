/**
 * Slotwise's cluster connection, one class per client, composed of independent features
 * side by side: each feature (multi-key commands, pipelining, key walks, cluster pub/sub)
 * is registered by its own auto-configuration as a
 * {@link dev.slotwise.internal.cluster.JedisClusterFeature} or
 * {@link dev.slotwise.internal.cluster.LettuceClusterFeature}, has its own
 * {@code slotwise.<feature>.enabled} switch, and knows none of the others. What a feature
 * adds to one connection is a {@link dev.slotwise.internal.cluster.ConnectionPart}:
 * command layers in front of Spring Data Redis's string and key commands, or a connection
 * mode (a pipeline, a subscription) that one feature at most provides.
 * <p>
 * Internal to Slotwise: not API. Types here may change or go in any release, public or
 * not; applications use the {@code slotwise.*} properties,
 * {@code dev.slotwise.autoconfigure}, {@code dev.slotwise.connection} and
 * {@code dev.slotwise.multikey.MultiKeyFailure}.
 */
@NullMarked
package dev.slotwise.internal.cluster;

import org.jspecify.annotations.NullMarked;
