/**
 * Pipelining on a Redis Cluster over Jedis: commands queued between
 * {@code openPipeline()} and {@code closePipeline()} are grouped by the master serving
 * their slot, replayed per node as one pipelined batch on a Spring Data Redis standalone
 * connection (so results are converted as Spring Data Redis converts them), nodes in
 * parallel, with {@code MOVED}/{@code ASK}/{@code TRYAGAIN} followed per command and
 * results in issue order.
 * <p>
 * Internal to Slotwise: not API. Types here may change or go in any release, public or
 * not; applications use the {@code slotwise.*} properties,
 * {@code dev.slotwise.autoconfigure}, {@code dev.slotwise.connection} and
 * {@code dev.slotwise.multikey.MultiKeyException}.
 */
@NullMarked
package dev.slotwise.internal.pipeline;

import org.jspecify.annotations.NullMarked;
