/**
 * Micrometer meters for Slotwise's pools, topology, executor and multi-key commands. Only this package (and the
 * auto-configuration that wires it) knows Micrometer; the feature packages expose plain hooks.
 */
@NullMarked
package dev.slotwise.metrics;

import org.jspecify.annotations.NullMarked;
