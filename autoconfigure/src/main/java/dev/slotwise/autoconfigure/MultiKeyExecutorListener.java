package dev.slotwise.autoconfigure;

import dev.slotwise.internal.multikey.MultiKeyExecutor;

/**
 * Hears of the lazily created multi-key executor. A type of its own, free of Micrometer, so that the configuration
 * that creates the executor loads without Micrometer on the class path (its bean method's lambda would otherwise
 * name the Micrometer-based listener, which class introspection loads).
 */
interface MultiKeyExecutorListener {

	/**
	 * Called once the executor exists.
	 * @param executor the executor
	 */
	void executorCreated(MultiKeyExecutor executor);

}
