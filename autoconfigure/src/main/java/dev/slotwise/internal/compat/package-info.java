/**
 * Every access Slotwise makes to a library's internals, one small class per library
 * ({@link dev.slotwise.internal.compat.JedisInternals},
 * {@link dev.slotwise.internal.compat.LettuceInternals},
 * {@link dev.slotwise.internal.compat.SpringDataInternals},
 * {@link dev.slotwise.internal.compat.SpringBootInternals}), each checking when it loads
 * that what it needs exists and falling back to the library's public behaviour when it
 * does not; {@link dev.slotwise.internal.health.FastPaths} reports which fast paths are
 * active (start-up log, health details, Actuator {@code info}). The one lookup of Jedis's
 * node pools, {@link dev.slotwise.internal.compat.JedisNodePools}, lives here too, since
 * creating a pool Jedis does not have yet is one of those accesses.
 * <p>
 * Internal to Slotwise: not API. Types here may change or go in any release, public or
 * not; applications use the {@code slotwise.*} properties,
 * {@code dev.slotwise.autoconfigure}, {@code dev.slotwise.connection} and
 * {@code dev.slotwise.multikey.MultiKeyException}.
 */
@NullMarked
package dev.slotwise.internal.compat;

import org.jspecify.annotations.NullMarked;
