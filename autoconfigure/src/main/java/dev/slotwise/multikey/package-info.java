/**
 * Slot-aware parallel multi-key commands: {@code mGet}, {@code mSet}, {@code del}, {@code unlink} and
 * {@code exists} across hash slots run as one pipelined batch of per-slot commands per node, the nodes in
 * parallel, behind Spring Data Redis's connection API on Jedis and Lettuce.
 */
@NullMarked
package dev.slotwise.multikey;

import org.jspecify.annotations.NullMarked;
