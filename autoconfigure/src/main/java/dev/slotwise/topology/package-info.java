/**
 * Cluster topology: which master serves which hash slot, looked up without storming one node.
 */
@NullMarked
package dev.slotwise.topology;

import org.jspecify.annotations.NullMarked;
