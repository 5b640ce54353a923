package dev.slotwise.internal.pipeline;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * One command queued in a cluster pipeline: the Spring Data Redis method and its
 * arguments, as the caller made the call, with what routing needs.
 *
 * @param index the command's position in the pipeline
 * @param group the Spring Data Redis command interface the method belongs to
 * @param method the method
 * @param args the arguments
 * @param slot the hash slot of its keys
 * @param crossSlot whether its keys span slots (then the multi-key engine runs it)
 * @param sampleKey a key of the command, to make Jedis learn about a node it has not seen
 */
record QueuedCommand(int index, Class<?> group, Method method, @Nullable Object @Nullable [] args, int slot,
		boolean crossSlot, byte[] sampleKey) {

	/**
	 * Returns whether Spring Data Redis reports the command as a status (no entry in the
	 * pipeline's results when it succeeds, an exception when it fails): the methods
	 * returning {@code void}.
	 */
	boolean isStatus() {
		return this.method.getReturnType() == void.class;
	}

	/**
	 * Returns the command's name for messages, e.g. {@code hSet#4}.
	 */
	String describe() {
		return this.method.getName() + "#" + this.index;
	}

}
