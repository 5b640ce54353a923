/**
 * Pure routing arithmetic for Redis Cluster: the hash slot of a key (CRC16 and hash tags
 * as the Redis Cluster specification defines them), the plan that groups keys by slot and
 * slots by node, chunking, and the glob match of a key against a SCAN/KEYS pattern. No
 * Spring, no client library.
 * <p>
 * Internal to Slotwise: not API. Types here may change or go in any release, public or
 * not; applications use the {@code slotwise.*} properties,
 * {@code dev.slotwise.autoconfigure}, {@code dev.slotwise.connection} and
 * {@code dev.slotwise.multikey.MultiKeyException}.
 */
@NullMarked
package dev.slotwise.internal.routing;

import org.jspecify.annotations.NullMarked;
