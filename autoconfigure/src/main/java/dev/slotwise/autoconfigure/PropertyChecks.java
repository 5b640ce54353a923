package dev.slotwise.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Range checks of bound values that fail start-up naming the property, so that Spring Boot's failure analysis
 * tells the user exactly what to change.
 */
final class PropertyChecks {

	private PropertyChecks() {
	}

	static void requireAtLeast(String property, int value, int minimum) {
		if (value < minimum) {
			throw new InvalidConfigurationPropertyValueException(property, value,
					(minimum == 0) ? "It must not be negative." : "It must be at least " + minimum + ".");
		}
	}

	static void requireNotNegative(String property, @Nullable Duration value) {
		if (value == null || value.isNegative()) {
			throw new InvalidConfigurationPropertyValueException(property, value, "It must not be negative.");
		}
	}

	static void requirePositive(String property, @Nullable Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new InvalidConfigurationPropertyValueException(property, value, "It must be positive.");
		}
	}

}
