/**
 * The whole keyspace of a cluster: a cluster-wide {@code SCAN} (one cursor per master,
 * the masters in parallel, read ahead a bounded amount, kept complete across failovers
 * and slot migrations), {@code KEYS} on every master in parallel, and the cache clearing
 * built on them, behind Spring Data Redis's key commands on Jedis and Lettuce.
 * <p>
 * Internal to Slotwise: not API. Types here may change or go in any release, public or
 * not; applications use the {@code slotwise.*} properties.
 */
@NullMarked
package dev.slotwise.internal.keyspace;

import org.jspecify.annotations.NullMarked;
