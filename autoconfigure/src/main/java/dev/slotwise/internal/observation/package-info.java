/**
 * Micrometer Observations for Slotwise's multi-key calls and cluster pipelines: one
 * observation per call or pipeline, with one child per node batch, so that a trace shows
 * the fan-out. Only this package (and the auto-configuration that wires it) knows the
 * Observation API; the engine exposes plain hooks.
 * <p>
 * Internal to Slotwise: not API. Types here may change or go in any release, public or
 * not; applications use the {@code slotwise.*} properties and the observation names and
 * keys documented in {@code docs/observability.md}.
 */
@NullMarked
package dev.slotwise.internal.observation;

import org.jspecify.annotations.NullMarked;
