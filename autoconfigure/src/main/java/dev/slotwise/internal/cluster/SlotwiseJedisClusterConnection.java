package dev.slotwise.internal.cluster;

import java.util.List;
import java.util.function.Supplier;

import dev.slotwise.internal.pipeline.ConnectionPipeline;
import dev.slotwise.internal.pubsub.ConnectionSubscription;
import dev.slotwise.internal.transaction.ClusterTransaction;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.connection.ClusterCommandExecutor;
import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisClusterServerCommands;
import org.springframework.data.redis.connection.RedisGeoCommands;
import org.springframework.data.redis.connection.RedisHashCommands;
import org.springframework.data.redis.connection.RedisHyperLogLogCommands;
import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisListCommands;
import org.springframework.data.redis.connection.RedisScriptingCommands;
import org.springframework.data.redis.connection.RedisSetCommands;
import org.springframework.data.redis.connection.RedisStreamCommands;
import org.springframework.data.redis.connection.RedisStringCommands;
import org.springframework.data.redis.connection.RedisZSetCommands;
import org.springframework.data.redis.connection.Subscription;
import org.springframework.data.redis.connection.jedis.JedisClusterConnection;

/**
 * A {@link JedisClusterConnection} composed of the features the application left on ({@link JedisClusterFeature}):
 * their layers in front of the string and key commands (cross-slot multi-key commands on the engine, cluster-wide
 * {@code scan} and {@code keys}), the pipeline (Spring Data Redis refuses to pipeline on a cluster: while one is open,
 * every key-based command group queues its calls in it) and the subscriptions across the cluster. Every other command
 * is Spring Data Redis's.
 */
final class SlotwiseJedisClusterConnection extends JedisClusterConnection {

	private static final byte[][] NO_NAMES = new byte[0][];

	private final ConnectionParts parts;

	SlotwiseJedisClusterConnection(RedisClusterClient client, ClusterCommandExecutor executor,
			ClusterTopologyProvider topologyProvider, List<ConnectionParts.Started<ConnectionView>> features) {
		super(client, executor, topologyProvider);
		this.parts = ConnectionParts.connect(features, new ConnectionView() {

			@Override
			public boolean isPipelinedOrQueueing() {
				return isPipelined() || isQueueing();
			}

			@Override
			public RedisStringCommands directStrings() {
				return composedStrings();
			}

			@Override
			public RedisKeyCommands directKeys() {
				return composedKeys();
			}

		});
	}

	private RedisStringCommands composedStrings() {
		return this.parts.strings(super::stringCommands);
	}

	private RedisKeyCommands composedKeys() {
		return this.parts.keys(super::keyCommands);
	}

	@Override
	public RedisStringCommands stringCommands() {
		return pipelinedOr(RedisStringCommands.class, this::composedStrings);
	}

	@Override
	public RedisKeyCommands keyCommands() {
		return pipelinedOr(RedisKeyCommands.class, this::composedKeys);
	}

	@Override
	public RedisHashCommands hashCommands() {
		return pipelinedOr(RedisHashCommands.class, super::hashCommands);
	}

	@Override
	public RedisListCommands listCommands() {
		return pipelinedOr(RedisListCommands.class, super::listCommands);
	}

	@Override
	public RedisSetCommands setCommands() {
		return pipelinedOr(RedisSetCommands.class, super::setCommands);
	}

	@Override
	public RedisZSetCommands zSetCommands() {
		return pipelinedOr(RedisZSetCommands.class, super::zSetCommands);
	}

	@Override
	public RedisHyperLogLogCommands hyperLogLogCommands() {
		return pipelinedOr(RedisHyperLogLogCommands.class, super::hyperLogLogCommands);
	}

	@Override
	public RedisGeoCommands geoCommands() {
		return pipelinedOr(RedisGeoCommands.class, super::geoCommands);
	}

	@Override
	public RedisStreamCommands streamCommands() {
		return pipelinedOr(RedisStreamCommands.class, super::streamCommands);
	}

	/**
	 * While pipelined, refuses every call: server commands have no key to route by.
	 */
	@Override
	public RedisClusterServerCommands serverCommands() {
		return pipelinedOr(RedisClusterServerCommands.class, super::serverCommands);
	}

	/**
	 * While pipelined, refuses every call: scripts are not pipelined on a cluster (yet). With the transactions
	 * feature on, a script whose keys span slots is refused before it is sent.
	 */
	@Override
	public RedisScriptingCommands scriptingCommands() {
		return pipelinedOr(RedisScriptingCommands.class, () -> this.parts.scripting(super::scriptingCommands));
	}

	/**
	 * Refused while pipelined: the raw command would run at once, outside the pipeline's results.
	 */
	@Override
	public Object execute(String command, byte[]... args) {
		if (this.parts.isQueueing()) {
			throw new InvalidDataAccessApiUsageException("execute(\"" + command
					+ "\", …) cannot be part of a transaction on a Redis Cluster: use the command groups");
		}
		if (this.parts.pipeline() != null && isPipelined()) {
			throw new InvalidDataAccessApiUsageException(
					"execute(\"" + command + "\", …) cannot be pipelined on a Redis Cluster: use the command groups");
		}
		return super.execute(command, args);
	}

	private <T> T pipelinedOr(Class<T> group, Supplier<T> direct) {
		ConnectionPipeline current = this.parts.pipeline();
		if (current != null && current.isOpen()) {
			return current.commands(group);
		}
		// While a transaction queues (transactions feature), its command groups route each call to the slot's master.
		ClusterTransaction transaction = this.parts.transaction();
		return (transaction != null && transaction.isQueueing()) ? transaction.commands(group) : direct.get();
	}

	@Override
	public void multi() {
		ClusterTransaction transaction = this.parts.transaction();
		if (transaction == null) {
			super.multi();
			return;
		}
		transaction.multi();
	}

	@Override
	public boolean isQueueing() {
		ClusterTransaction transaction = this.parts.transaction();
		return (transaction != null) ? transaction.isQueueing() : super.isQueueing();
	}

	@Override
	public List<Object> exec() {
		ClusterTransaction transaction = this.parts.transaction();
		return (transaction != null) ? transaction.exec() : super.exec();
	}

	@Override
	public void discard() {
		ClusterTransaction transaction = this.parts.transaction();
		if (transaction == null) {
			super.discard();
			return;
		}
		transaction.discard();
	}

	@Override
	public void watch(byte[]... keys) {
		ClusterTransaction transaction = this.parts.transaction();
		if (transaction == null) {
			super.watch(keys);
			return;
		}
		transaction.watch(keys);
	}

	@Override
	public void unwatch() {
		ClusterTransaction transaction = this.parts.transaction();
		if (transaction == null) {
			super.unwatch();
			return;
		}
		transaction.unwatch();
	}

	@Override
	public void openPipeline() {
		ConnectionPipeline pipeline = this.parts.pipeline();
		if (pipeline == null) {
			super.openPipeline();
			return;
		}
		pipeline.open();
	}

	@Override
	public boolean isPipelined() {
		ConnectionPipeline pipeline = this.parts.pipeline();
		return (pipeline != null) ? pipeline.isOpen() : super.isPipelined();
	}

	@Override
	public List<Object> closePipeline() {
		ConnectionPipeline pipeline = this.parts.pipeline();
		return (pipeline != null) ? pipeline.close() : super.closePipeline();
	}

	/**
	 * Subscribes across the cluster when the pub/sub feature is on: keyspace and keyevent channels and patterns on
	 * every master (each notifies of its own keys only), following failovers and new masters; other channels on one
	 * master.
	 */
	@Override
	public void subscribe(MessageListener listener, byte[]... channels) {
		if (!this.parts.subscribe(listener, channels, NO_NAMES, isPipelined() || isQueueing())) {
			super.subscribe(listener, channels);
		}
	}

	/**
	 * Subscribes patterns across the cluster, as {@link #subscribe(MessageListener, byte[]...)} does channels.
	 */
	@Override
	public void pSubscribe(MessageListener listener, byte[]... patterns) {
		if (!this.parts.subscribe(listener, NO_NAMES, patterns, isPipelined() || isQueueing())) {
			super.pSubscribe(listener, patterns);
		}
	}

	@Override
	public @Nullable Subscription getSubscription() {
		ConnectionSubscription subscription = this.parts.subscription();
		return (subscription != null) ? subscription.get() : super.getSubscription();
	}

	@Override
	public boolean isSubscribed() {
		ConnectionSubscription subscription = this.parts.subscription();
		return (subscription != null) ? subscription.isSubscribed() : super.isSubscribed();
	}

	@Override
	public void close() {
		this.parts.close();
		super.close();
	}

}
