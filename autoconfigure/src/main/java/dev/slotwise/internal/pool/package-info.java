/**
 * Connection pool tuning: the settings Slotwise applies, the start-up advisor that names
 * harmful ones, and the pre-warm that opens connections before the first request needs
 * them.
 * <p>
 * Internal to Slotwise: not API. Types here may change or go in any release, public or
 * not; applications use the {@code slotwise.*} properties,
 * {@code dev.slotwise.autoconfigure}, {@code dev.slotwise.connection} and
 * {@code dev.slotwise.multikey.MultiKeyException}.
 */
@NullMarked
package dev.slotwise.internal.pool;

import org.jspecify.annotations.NullMarked;
