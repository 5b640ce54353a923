/**
 * The multi-key engine's node transport over Jedis: node batches written on connections
 * borrowed from the cluster client's node pools, small batches of one call written by the
 * calling thread itself, larger ones on the bounded executor; replica reads; broken
 * connections handed back off the caller's thread.
 * <p>
 * Internal to Slotwise: not API. Types here may change or go in any release, public or
 * not; applications use the {@code slotwise.*} properties,
 * {@code dev.slotwise.autoconfigure}, {@code dev.slotwise.connection} and
 * {@code dev.slotwise.multikey.MultiKeyFailure}.
 */
@NullMarked
package dev.slotwise.internal.multikey.jedis;

import org.jspecify.annotations.NullMarked;
