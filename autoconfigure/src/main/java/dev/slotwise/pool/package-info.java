/**
 * Connection pool tuning: the settings Slotwise applies, the start-up advisor that names harmful ones, and the
 * pre-warm that opens connections before the first request needs them.
 */
@NullMarked
package dev.slotwise.pool;

import org.jspecify.annotations.NullMarked;
