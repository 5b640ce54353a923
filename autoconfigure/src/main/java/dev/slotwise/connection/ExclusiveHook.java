package dev.slotwise.connection;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A hook of a connection factory that one contributor at most may fill, such as the
 * topology provider: two providers cannot both serve the same connections, so a second
 * claim fails naming both contributors instead of silently replacing the first.
 *
 * @param <T> the type of what fills the hook
 */
final class ExclusiveHook<T> {

	private final String description;

	// Volatile, not guarded by the claim's lock: the hooks are read on every connection
	// handed out, by every calling thread, and filled once before the factory starts.
	private volatile @Nullable String contributor;

	private volatile @Nullable T value;

	/**
	 * Creates an empty hook.
	 * @param description what the hook provides, for messages, e.g.
	 * {@code "the topology provider"}
	 */
	ExclusiveHook(String description) {
		this.description = description;
	}

	/**
	 * Fills the hook.
	 * @param contributor the name of the contributor, for messages
	 * @param name the name of the contribution's argument, for the message when it is
	 * {@code null}
	 * @param value what fills the hook
	 * @throws IllegalStateException when another contributor filled it already
	 */
	synchronized void claim(String contributor, String name, T value) {
		Assert.notNull(value, () -> "'" + name + "' must not be null");
		Assert.hasText(contributor, "'contributor' must not be empty");
		if (this.contributor != null) {
			throw new IllegalStateException("'%s' cannot provide %s: '%s' already provides it, and only one may"
				.formatted(contributor, this.description, this.contributor));
		}
		this.contributor = contributor;
		this.value = value;
	}

	/**
	 * Returns what fills the hook.
	 * @return the value, or {@code null} when no contributor claimed the hook
	 */
	@Nullable T get() {
		return this.value;
	}

	/**
	 * Returns who filled the hook.
	 * @return the contributor, or {@code null} when the hook is empty
	 */
	@Nullable String contributor() {
		return this.contributor;
	}

}
