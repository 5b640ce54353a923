package dev.slotwise.internal.multikey;

import java.time.Duration;

/**
 * Limits of the multi-key engine.
 *
 * @param maxKeysPerCommand most keys in one command sent to a node; larger slot groups
 * are chunked
 * @param maxCommandsPerPipeline most commands written to a node before its replies are
 * read, so one caller cannot monopolise a single-threaded server
 * @param timeout how long a whole call may take before it fails
 * @param maxRedirects how often a command answered with {@code MOVED}, {@code ASK} or
 * {@code TRYAGAIN} is sent again
 */
public record MultiKeySettings(int maxKeysPerCommand, int maxCommandsPerPipeline, Duration timeout, int maxRedirects) {

	/**
	 * Validates the settings.
	 * @param maxKeysPerCommand positive
	 * @param maxCommandsPerPipeline positive
	 * @param timeout positive
	 * @param maxRedirects zero or more
	 */
	public MultiKeySettings {
		if (maxKeysPerCommand < 1) {
			throw new IllegalArgumentException("'maxKeysPerCommand' must be positive, was " + maxKeysPerCommand);
		}
		if (maxCommandsPerPipeline < 1) {
			throw new IllegalArgumentException(
					"'maxCommandsPerPipeline' must be positive, was " + maxCommandsPerPipeline);
		}
		if (timeout == null || timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("'timeout' must be positive, was " + timeout);
		}
		if (maxRedirects < 0) {
			throw new IllegalArgumentException("'maxRedirects' must not be negative, was " + maxRedirects);
		}
	}

}
