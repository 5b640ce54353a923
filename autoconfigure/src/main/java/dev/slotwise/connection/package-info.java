/**
 * Connection factories that Slotwise puts in place of Spring Data Redis's own in cluster
 * mode. They are the single place where the topology provider, the multi-key connection
 * subclasses, the pool pre-warm and the meters plug into Spring Data Redis, each through
 * a documented hook.
 */
@NullMarked
package dev.slotwise.connection;

import org.jspecify.annotations.NullMarked;
