package dev.slotwise.autoconfigure;

import dev.slotwise.internal.multikey.jedis.MultiKeyExecutor;

/**
 * Told when the (lazily created) multi-key executor exists. A type of its own, free of
 * Micrometer, so that the configuration that creates the executor can ask for listeners
 * when Micrometer is not on the class path: its meters binder is one listener.
 */
@FunctionalInterface
interface MultiKeyExecutorListener {

	/**
	 * Called once, right after the executor is created.
	 * @param executor the executor
	 */
	void executorCreated(MultiKeyExecutor executor);

}
