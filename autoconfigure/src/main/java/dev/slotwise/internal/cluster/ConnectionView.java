package dev.slotwise.internal.cluster;

import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisStringCommands;

/**
 * What a {@link ConnectionPart} may ask of the connection it belongs to.
 */
public interface ConnectionView {

	/**
	 * Tells whether the connection pipelines or queues a transaction: command layers then
	 * leave each call to Spring Data Redis (or to the pipeline) unchanged.
	 * @return whether the connection is pipelined or queueing
	 */
	boolean isPipelinedOrQueueing();

	/**
	 * Returns the connection's string commands as the features compose them, outside any
	 * pipeline: what a pipeline runs its cross-slot multi-key commands on.
	 * @return the composed string commands
	 */
	RedisStringCommands directStrings();

	/**
	 * Returns the connection's key commands as the features compose them, outside any
	 * pipeline.
	 * @return the composed key commands
	 */
	RedisKeyCommands directKeys();

}
