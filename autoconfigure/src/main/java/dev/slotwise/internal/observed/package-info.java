/**
 * What an observer of Slotwise's operations sees, with no Micrometer: an
 * {@link dev.slotwise.internal.observed.Observed} operation (a multi-key call, a
 * pipeline, a scan) and its node batches as children. The engine, pipelines and scans
 * start and end them; {@code dev.slotwise.internal.observation} and
 * {@code dev.slotwise.internal.metrics} implement them.
 * <p>
 * Internal to Slotwise: not API. Types here may change or go in any release, public or
 * not; applications use the {@code slotwise.*} properties,
 * {@code dev.slotwise.autoconfigure}, {@code dev.slotwise.connection} and
 * {@code dev.slotwise.multikey.MultiKeyFailure}.
 */
@NullMarked
package dev.slotwise.internal.observed;

import org.jspecify.annotations.NullMarked;
