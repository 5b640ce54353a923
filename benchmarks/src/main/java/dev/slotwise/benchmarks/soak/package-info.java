/**
 * The chaos soak: applications over Jedis and Lettuce, with Slotwise and without it (the
 * control, plain Spring Boot) under one seed, run against one local cluster while seeded
 * faults hit it, with invariants on every value read and a report of what broke, when and
 * for how long. Started by {@code src/soak.sh}; see {@code docs/soak.md}.
 */
@NullMarked
package dev.slotwise.benchmarks.soak;

import org.jspecify.annotations.NullMarked;
