/**
 * The benchmark gate: reading JMH results
 * ({@link dev.slotwise.benchmarks.gate.ResultFiles}), the in-run baselines
 * ({@link dev.slotwise.benchmarks.gate.Baselines}), the two Slotwise paths' ratio
 * ({@link dev.slotwise.benchmarks.gate.ClientPaths}), comparing two runs
 * ({@link dev.slotwise.benchmarks.gate.Compare}) and summarizing one with charts
 * ({@link dev.slotwise.benchmarks.gate.Summary}).
 */
@NullMarked
package dev.slotwise.benchmarks.gate;

import org.jspecify.annotations.NullMarked;
