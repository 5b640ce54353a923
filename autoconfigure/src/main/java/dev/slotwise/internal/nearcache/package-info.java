/**
 * A near cache for a Redis Cluster: values read from Redis kept in the application's
 * memory and dropped when any node says their key changed. Every node (masters and
 * replicas) carries one invalidation connection of Slotwise's with
 * {@code CLIENT TRACKING ... BCAST} on the tracked key prefixes; a slot's entries are
 * served only while every live node of its shard delivers, and a read is kept only if
 * nothing touched its slot while it was in flight.
 * <p>
 * Internal to Slotwise: not API. Types here may change or go in any release, public or
 * not; applications use the {@code slotwise.near-cache.*} properties.
 */
@NullMarked
package dev.slotwise.internal.nearcache;

import org.jspecify.annotations.NullMarked;
