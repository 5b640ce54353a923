package dev.slotwise.internal.pipeline;

import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;

import dev.slotwise.internal.routing.NodeAddress;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.RedisClusterClient;

/**
 * Pipelining for the cluster connections of one Jedis connection factory: what every
 * connection's pipeline shares (the cluster client whose node pools it borrows from, the
 * slot owners, the executor nodes run on, the limits). Each connection gets its own
 * {@link ConnectionPipeline} from {@link #forConnection(Function)}.
 */
public final class JedisClusterPipelining {

	private final RedisClusterClient client;

	private final Supplier<IntFunction<@Nullable NodeAddress>> router;

	private final Runnable invalidateTopology;

	private final Executor executor;

	private final int maxCommandsPerFlush;

	private final int maxRedirects;

	private final PipelineObserver observer;

	/**
	 * Creates the shared part.
	 * @param client the cluster client; its node pools lend the connections
	 * @param router supplies a snapshot of the slot owners (the multi-key engine's)
	 * @param invalidateTopology marks the topology stale after {@code MOVED} or a node
	 * failure
	 * @param executor runs node batches in parallel (the multi-key executor)
	 * @param maxCommandsPerFlush the most commands written to a node before their replies
	 * are read, positive
	 * @param maxRedirects the most redirects a command follows, not negative
	 * @param observer sees every pipeline
	 */
	public JedisClusterPipelining(RedisClusterClient client, Supplier<IntFunction<@Nullable NodeAddress>> router,
			Runnable invalidateTopology, Executor executor, int maxCommandsPerFlush, int maxRedirects,
			PipelineObserver observer) {
		if (client == null) {
			throw new IllegalArgumentException("'client' must not be null");
		}
		if (router == null) {
			throw new IllegalArgumentException("'router' must not be null");
		}
		if (invalidateTopology == null) {
			throw new IllegalArgumentException("'invalidateTopology' must not be null");
		}
		if (executor == null) {
			throw new IllegalArgumentException("'executor' must not be null");
		}
		if (maxCommandsPerFlush < 1) {
			throw new IllegalArgumentException("'maxCommandsPerFlush' must be positive, was " + maxCommandsPerFlush);
		}
		if (maxRedirects < 0) {
			throw new IllegalArgumentException("'maxRedirects' must not be negative, was " + maxRedirects);
		}
		if (observer == null) {
			throw new IllegalArgumentException("'observer' must not be null");
		}
		this.client = client;
		this.router = router;
		this.invalidateTopology = invalidateTopology;
		this.executor = executor;
		this.maxCommandsPerFlush = maxCommandsPerFlush;
		this.maxRedirects = maxRedirects;
		this.observer = observer;
	}

	/**
	 * Returns the pipeline state of one connection.
	 * @param direct returns the connection's own (not pipelined) commands of a Spring
	 * Data Redis command interface; cross-slot {@code mGet}, {@code mSet}, {@code del},
	 * {@code unlink} and {@code exists} of a pipeline run on them, which must route them
	 * to the multi-key engine
	 * @return the connection's pipeline, closed
	 */
	public ConnectionPipeline forConnection(Function<Class<?>, Object> direct) {
		if (direct == null) {
			throw new IllegalArgumentException("'direct' must not be null");
		}
		return new ConnectionPipeline(this, direct);
	}

	RedisClusterClient client() {
		return this.client;
	}

	IntFunction<@Nullable NodeAddress> router() {
		return this.router.get();
	}

	void invalidateTopology() {
		this.invalidateTopology.run();
	}

	Executor executor() {
		return this.executor;
	}

	int maxCommandsPerFlush() {
		return this.maxCommandsPerFlush;
	}

	int maxRedirects() {
		return this.maxRedirects;
	}

	PipelineObserver observer() {
		return this.observer;
	}

}
