/**
 * A runnable application that uses Redis Cluster through an ordinary
 * {@code StringRedisTemplate}, with Slotwise on the class path.
 */
@NullMarked
package dev.slotwise.samples;

import org.jspecify.annotations.NullMarked;
