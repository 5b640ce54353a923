/**
 * Transactions on a Redis Cluster: {@code MULTI}/{@code EXEC}/{@code WATCH} for keys of
 * one hash slot, run on a connection of their own to the master serving that slot,
 * through a Spring Data Redis standalone connection (so results are converted exactly as
 * in standalone mode). The cluster connections delegate {@code multi()}, {@code exec()},
 * {@code discard()}, {@code watch()}, {@code unwatch()} and, while queueing, their
 * command groups to a {@link dev.slotwise.internal.transaction.ClusterTransaction}.
 * <p>
 * Internal to Slotwise: not API. Types here may change or go in any release, public or
 * not; applications use the {@code slotwise.*} properties,
 * {@code dev.slotwise.autoconfigure}, {@code dev.slotwise.connection} and
 * {@code dev.slotwise.multikey.MultiKeyException}.
 */
@NullMarked
package dev.slotwise.internal.transaction;

import org.jspecify.annotations.NullMarked;
