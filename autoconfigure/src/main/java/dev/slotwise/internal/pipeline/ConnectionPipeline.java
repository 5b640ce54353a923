package dev.slotwise.internal.pipeline;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.connection.RedisPipelineException;

/**
 * The pipeline of one cluster connection. While open, the connection hands out recording
 * commands from {@link #commands(Class)}: each call is checked and queued, and returns
 * {@code null} (Spring Data Redis's pipeline contract); {@link #close()} runs the queue.
 * Not thread-safe, like the connection.
 */
public final class ConnectionPipeline {

	private final JedisClusterPipelining pipelining;

	private final Function<Class<?>, Object> direct;

	private final CommandProxies recorders = new CommandProxies(this::record);

	private @Nullable List<QueuedCommand> queue;

	ConnectionPipeline(JedisClusterPipelining pipelining, Function<Class<?>, Object> direct) {
		this.pipelining = pipelining;
		this.direct = direct;
	}

	/**
	 * Opens the pipeline; does nothing when it is open already.
	 */
	public void open() {
		if (this.queue == null) {
			this.queue = new ArrayList<>();
		}
	}

	/**
	 * Returns whether the pipeline is open.
	 * @return whether commands are being queued
	 */
	public boolean isOpen() {
		return this.queue != null;
	}

	/**
	 * Returns commands of a Spring Data Redis command interface that queue each call in
	 * this pipeline.
	 * @param <T> the interface
	 * @param group the interface, e.g. {@code RedisStringCommands.class}; interfaces that
	 * cannot be pipelined on a cluster (server, scripting) refuse every call
	 * @return the recording commands
	 */
	public <T> T commands(Class<T> group) {
		return this.recorders.get(group);
	}

	private @Nullable Object record(Class<?> group, Object proxy, Method method, @Nullable Object @Nullable [] args) {
		if (method.getDeclaringClass() == Object.class) {
			return switch (method.getName()) {
				case "equals" -> proxy == args[0];
				case "hashCode" -> System.identityHashCode(proxy);
				default -> "Slotwise cluster pipeline " + group.getSimpleName();
			};
		}
		List<QueuedCommand> current = this.queue;
		if (current == null) {
			throw new InvalidDataAccessApiUsageException("The pipeline is closed");
		}
		if (!NodeReplay.supports(group)) {
			throw new InvalidDataAccessApiUsageException(group.getSimpleName() + "." + method.getName()
					+ " cannot be pipelined on a Redis Cluster: only key-based command groups can");
		}
		current.add(CommandRouting.plan(current.size(), group, method, args));
		return null;
	}

	/**
	 * Closes the pipeline and runs its commands.
	 * @return the results in issue order (successful {@code void} commands left out, as
	 * Spring Data Redis does); empty when the pipeline was not open
	 * @throws RedisPipelineException when commands failed with an error reply: its
	 * results hold every other command's result and the exception in each failed
	 * command's position
	 * @throws org.springframework.data.redis.RedisConnectionFailureException when a node
	 * failed or timed out, naming it and its commands left without a reply
	 */
	public List<@Nullable Object> close() {
		List<QueuedCommand> commands = this.queue;
		// Closed before running, so that the connection's own commands (cross-slot calls
		// on the engine) run directly.
		this.queue = null;
		if (commands == null || commands.isEmpty()) {
			return new ArrayList<>();
		}
		return new PipelineRun(this.pipelining, this.direct, commands).run();
	}

}
