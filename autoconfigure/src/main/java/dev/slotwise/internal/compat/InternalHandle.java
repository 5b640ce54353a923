package dev.slotwise.internal.compat;

import org.jspecify.annotations.Nullable;

/**
 * A handle into a library's internals (a {@code VarHandle}, a {@code MethodHandle}),
 * looked up once when its class loads, or why it could not be: what a {@link FastPath}
 * reports and its callers fall back on.
 *
 * @param <H> the handle type
 * @param handle the handle, or {@code null} when the lookup failed
 * @param problem why the lookup failed, or {@code null} when it did not
 */
record InternalHandle<H>(@Nullable H handle, @Nullable String problem) {

	/**
	 * Looks a handle up.
	 * @param <H> the handle type
	 * @param failure what a failure says before the exception, e.g. {@code "cannot read"}
	 * followed by the field
	 * @param finder finds the handle
	 * @return the handle, or the problem: the failure and the exception
	 */
	static <H> InternalHandle<H> of(String failure, Finder<H> finder) {
		try {
			return new InternalHandle<>(finder.find(), null);
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			return new InternalHandle<>(null, failure + ": " + ex);
		}
	}

	/**
	 * Finds a handle by reflection.
	 *
	 * @param <H> the handle type
	 */
	@FunctionalInterface
	interface Finder<H> {

		H find() throws ReflectiveOperationException;

	}

}
