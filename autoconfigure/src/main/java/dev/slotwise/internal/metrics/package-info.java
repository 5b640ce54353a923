/**
 * Micrometer meters for Slotwise's pools, topology, executor and multi-key commands. Only
 * this package (and the auto-configuration that wires it) knows Micrometer; the feature
 * packages expose plain hooks.
 * <p>
 * Internal to Slotwise: not API. Types here may change or go in any release, public or
 * not; applications use the {@code slotwise.*} properties,
 * {@code dev.slotwise.autoconfigure}, {@code dev.slotwise.connection} and
 * {@code dev.slotwise.multikey.MultiKeyException}.
 */
@NullMarked
package dev.slotwise.internal.metrics;

import org.jspecify.annotations.NullMarked;
