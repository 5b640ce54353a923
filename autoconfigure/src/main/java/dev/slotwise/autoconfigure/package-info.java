/**
 * Spring Boot auto-configuration for Slotwise: wiring and
 * {@link dev.slotwise.autoconfigure.SlotwiseProperties} only; the behaviour lives in the
 * feature packages.
 */
@NullMarked
package dev.slotwise.autoconfigure;

import org.jspecify.annotations.NullMarked;
