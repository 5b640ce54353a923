package dev.slotwise.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.validation.Errors;

/**
 * The range checks of Slotwise's {@link org.springframework.validation.Validator}s. Each
 * rejects a field by its dashed property name (e.g.
 * {@code multikey.max-keys-per-command}) with a message that names the whole property, so
 * that the binder's {@code BindValidationException} and Spring Boot's failure analysis
 * tell the user exactly what to change, whichever property it is.
 */
final class PropertyChecks {

	private final Errors errors;

	private final String prefix;

	/**
	 * Creates checks that report to the given errors.
	 * @param errors the errors of the object being validated
	 * @param prefix the prefix of the object's properties, e.g. {@code slotwise}
	 */
	PropertyChecks(Errors errors, String prefix) {
		this.errors = errors;
		this.prefix = prefix;
	}

	/**
	 * Returns the full name of a property of the validated object.
	 * @param field the dashed property path below the prefix
	 * @return the property name
	 */
	String name(String field) {
		return this.prefix + "." + field;
	}

	void atLeast(String field, int value, int minimum) {
		if (value < minimum) {
			reject(field, (minimum == 0) ? "must not be negative" : "must be at least " + minimum);
		}
	}

	void notNegative(String field, @Nullable Duration value) {
		if (value == null || value.isNegative()) {
			reject(field, "must not be negative");
		}
	}

	void positive(String field, @Nullable Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			reject(field, "must be positive");
		}
	}

	void notEmpty(String field, @Nullable String value) {
		if (value == null || value.isEmpty()) {
			reject(field, "must not be empty");
		}
	}

	/**
	 * Rejects a field.
	 * @param field the dashed property path below the prefix
	 * @param reason what is wrong, completing the sentence "'property' ..."
	 */
	void reject(String field, String reason) {
		this.errors.rejectValue(field, "invalid", "'" + name(field) + "' " + reason);
	}

}
