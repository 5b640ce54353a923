/**
 * JMH benchmarks against a real local Redis Cluster. Every benchmark runs Slotwise and
 * its baseline (Spring Boot and Spring Data Redis defaults over the same client) in one
 * run, on the same cluster; ratios are what we quote.
 */
@NullMarked
package dev.slotwise.benchmarks;

import org.jspecify.annotations.NullMarked;
