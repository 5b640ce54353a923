/**
 * What applications see of Slotwise's multi-key commands: {@link dev.slotwise.multikey.MultiKeyException}, the
 * {@code DataAccessException} a cross-slot call raises when a node fails, a reply is an error, redirects run out or
 * the call's timeout passes. The engine itself lives in {@code dev.slotwise.internal.multikey}.
 */
@NullMarked
package dev.slotwise.multikey;

import org.jspecify.annotations.NullMarked;
