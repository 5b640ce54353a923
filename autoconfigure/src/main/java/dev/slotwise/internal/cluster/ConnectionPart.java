package dev.slotwise.internal.cluster;

import dev.slotwise.internal.pipeline.ConnectionPipeline;
import dev.slotwise.internal.pubsub.ConnectionSubscription;
import dev.slotwise.internal.transaction.ClusterTransaction;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisScriptingCommands;
import org.springframework.data.redis.connection.RedisStringCommands;

/**
 * What one feature adds to one Slotwise cluster connection. Command layers wrap the
 * connection's string and key commands, the first feature's outermost; a connection mode
 * (the pipeline, the subscriptions) is provided by one feature at most. Every method has
 * a default that adds nothing.
 */
public interface ConnectionPart {

	/** A part that adds nothing, for a feature with nothing to add to a connection. */
	ConnectionPart NONE = new ConnectionPart() {
	};

	/**
	 * Wraps the connection's string commands.
	 * @param next the commands of the features after this one, Spring Data Redis's last
	 * @return the commands to use
	 */
	default RedisStringCommands strings(RedisStringCommands next) {
		return next;
	}

	/**
	 * Wraps the connection's key commands.
	 * @param next the commands of the features after this one, Spring Data Redis's last
	 * @return the commands to use
	 */
	default RedisKeyCommands keys(RedisKeyCommands next) {
		return next;
	}

	/**
	 * Returns the pipeline the connection queues commands in between
	 * {@code openPipeline()} and {@code closePipeline()}.
	 * @return the pipeline, or {@code null} to leave pipelining to Spring Data Redis
	 */
	default @Nullable ConnectionPipeline pipeline() {
		return null;
	}

	/**
	 * Returns the subscriptions of the connection.
	 * @return the subscriptions, or {@code null} to leave them to Spring Data Redis
	 */
	default @Nullable ConnectionSubscription subscription() {
		return null;
	}

	/**
	 * Wraps the connection's scripting commands.
	 * @param next the commands of the features after this one, Spring Data Redis's last
	 * @return the commands to use
	 */
	default RedisScriptingCommands scripting(RedisScriptingCommands next) {
		return next;
	}

	/**
	 * Returns the transaction state the connection's {@code multi()}, {@code exec()},
	 * {@code discard()}, {@code watch()} and {@code unwatch()} delegate to, and whose
	 * command groups it hands out while queueing.
	 * @return the transaction state, or {@code null} to leave transactions to Spring Data
	 * Redis
	 */
	default @Nullable ClusterTransaction transaction() {
		return null;
	}

	/**
	 * Releases what the part holds for the connection, when the connection closes.
	 */
	default void close() {
	}

}
