/**
 * What applications see of Slotwise's multi-key commands: the exceptions a cross-slot
 * call raises, each of the type Spring Data Redis translates the same failure to and each
 * a {@link dev.slotwise.multikey.MultiKeyFailure} naming the nodes and slots involved.
 * The engine itself lives in {@code dev.slotwise.internal.multikey}.
 */
@NullMarked
package dev.slotwise.multikey;

import org.jspecify.annotations.NullMarked;
