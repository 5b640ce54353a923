package dev.slotwise.internal.compat;

import org.jspecify.annotations.Nullable;

/**
 * One way Slotwise goes faster (or knows more) than the library's public API allows, and
 * whether it is active.
 *
 * @param name a short stable name, e.g. {@code lettuce-batch-write}
 * @param relies what it relies on, e.g.
 * {@code io.lettuce.core.protocol.DefaultEndpoint.channel}
 * @param fallback what happens instead when it is not active
 * @param problem why it is not active, or {@code null} when it is
 */
public record FastPath(String name, String relies, String fallback, @Nullable String problem) {

	/**
	 * Returns whether the fast path is taken.
	 * @return whether it is active
	 */
	public boolean active() {
		return this.problem == null;
	}

	/**
	 * Describes the state in one phrase, for logs, health details and Actuator
	 * {@code info}.
	 * @return {@code active}, or {@code off} with the problem and the fallback
	 */
	public String describe() {
		return active() ? "active" : "off (" + this.problem + "): " + this.fallback;
	}

}
