/**
 * Slot-aware parallel multi-key commands: {@code mGet}, {@code mSet}, {@code del},
 * {@code unlink} and {@code exists} across hash slots run as one pipelined batch of
 * per-slot commands per node, the nodes in parallel, behind Spring Data Redis's
 * connection API on Jedis and Lettuce.
 * <p>
 * Internal to Slotwise: not API. Types here may change or go in any release, public or
 * not; applications use the {@code slotwise.*} properties,
 * {@code dev.slotwise.autoconfigure}, {@code dev.slotwise.connection} and
 * {@code dev.slotwise.multikey.MultiKeyFailure}.
 */
@NullMarked
package dev.slotwise.internal.multikey;

import org.jspecify.annotations.NullMarked;
