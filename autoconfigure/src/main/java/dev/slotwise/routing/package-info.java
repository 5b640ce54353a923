/**
 * Pure routing arithmetic for Redis Cluster: the hash slot of a key (CRC16 and hash tags as the Redis Cluster
 * specification defines them), the plan that groups keys by slot and slots by node, and chunking. No Spring, no
 * client library.
 */
@NullMarked
package dev.slotwise.routing;

import org.jspecify.annotations.NullMarked;
