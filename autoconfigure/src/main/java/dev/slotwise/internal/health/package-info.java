/**
 * Spring Boot Actuator health for a Redis Cluster behind Slotwise: slot coverage and
 * reachable masters from the cached topology and one cheap probe per check.
 * <p>
 * Internal to Slotwise: not API. Types here may change or go in any release, public or
 * not; applications use the {@code slotwise.*} properties,
 * {@code dev.slotwise.autoconfigure}, {@code dev.slotwise.connection} and
 * {@code dev.slotwise.multikey.MultiKeyException}.
 */
@NullMarked
package dev.slotwise.internal.health;

import org.jspecify.annotations.NullMarked;
