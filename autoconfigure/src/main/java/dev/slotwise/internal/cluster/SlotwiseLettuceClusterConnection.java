package dev.slotwise.internal.cluster;

import org.springframework.dao.InvalidDataAccessApiUsageException;

import java.util.function.Supplier;

import java.time.Duration;
import java.util.List;

import dev.slotwise.internal.topology.RefreshableTopologyProvider;
import dev.slotwise.internal.pubsub.ConnectionSubscription;
import dev.slotwise.internal.transaction.ClusterTransaction;

import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterCommandExecutor;
import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisClusterServerCommands;
import org.springframework.data.redis.connection.RedisGeoCommands;
import org.springframework.data.redis.connection.RedisHashCommands;
import org.springframework.data.redis.connection.RedisHyperLogLogCommands;
import org.springframework.data.redis.connection.RedisListCommands;
import org.springframework.data.redis.connection.RedisScriptingCommands;
import org.springframework.data.redis.connection.RedisSetCommands;
import org.springframework.data.redis.connection.RedisStreamCommands;
import org.springframework.data.redis.connection.RedisZSetCommands;
import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisStringCommands;
import org.springframework.data.redis.connection.Subscription;
import org.springframework.data.redis.connection.lettuce.LettuceClusterConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;

/**
 * A {@link LettuceClusterConnection} composed of the features the application left on ({@link LettuceClusterFeature}):
 * their layers in front of the string and key commands (cross-slot multi-key commands on the engine over Lettuce's
 * node connections, cluster-wide {@code scan} and {@code keys}) and the subscriptions across the cluster. Every other
 * command is Spring Data Redis's.
 */
final class SlotwiseLettuceClusterConnection extends LettuceClusterConnection {

	private static final byte[][] NO_NAMES = new byte[0][];

	private final @Nullable StatefulRedisClusterConnection<byte[], byte[]> sharedConnection;

	private final ConnectionParts parts;

	SlotwiseLettuceClusterConnection(@Nullable StatefulRedisClusterConnection<byte[], byte[]> sharedConnection,
			LettuceConnectionProvider connectionProvider, ClusterTopologyProvider topologyProvider,
			ClusterCommandExecutor executor, Duration timeout, LettuceClusterRuntime runtime,
			List<ConnectionParts.Started<LettuceConnectionView>> features) {
		super(sharedConnection, connectionProvider, topologyProvider, executor, timeout);
		this.sharedConnection = sharedConnection;
		this.parts = ConnectionParts.connect(features, new LettuceConnectionView() {

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

			@Override
			public StatefulRedisClusterConnection<byte[], byte[]> nativeConnection() {
				return nativeClusterConnection();
			}

			@Override
			public void invalidateTopology(long routedAt) {
				if (topologyProvider instanceof RefreshableTopologyProvider refreshable) {
					refreshable.invalidate();
				}
				runtime.refreshTopology(routedAt);
			}

		});
	}

	@Override
	public RedisStringCommands stringCommands() {
		return queueingOr(RedisStringCommands.class, this::composedStrings);
	}

	@Override
	public RedisKeyCommands keyCommands() {
		return queueingOr(RedisKeyCommands.class, this::composedKeys);
	}

	@Override
	public RedisHashCommands hashCommands() {
		return queueingOr(RedisHashCommands.class, super::hashCommands);
	}

	@Override
	public RedisListCommands listCommands() {
		return queueingOr(RedisListCommands.class, super::listCommands);
	}

	@Override
	public RedisSetCommands setCommands() {
		return queueingOr(RedisSetCommands.class, super::setCommands);
	}

	@Override
	public RedisZSetCommands zSetCommands() {
		return queueingOr(RedisZSetCommands.class, super::zSetCommands);
	}

	@Override
	public RedisHyperLogLogCommands hyperLogLogCommands() {
		return queueingOr(RedisHyperLogLogCommands.class, super::hyperLogLogCommands);
	}

	@Override
	public RedisGeoCommands geoCommands() {
		return queueingOr(RedisGeoCommands.class, super::geoCommands);
	}

	@Override
	public RedisStreamCommands streamCommands() {
		return queueingOr(RedisStreamCommands.class, super::streamCommands);
	}

	/**
	 * While a transaction queues, refuses every call: server commands have no key to choose a slot by.
	 */
	@Override
	public RedisClusterServerCommands serverCommands() {
		return queueingOr(RedisClusterServerCommands.class, super::serverCommands);
	}

	/**
	 * With the transactions feature on, a script whose keys span slots is refused before it is sent.
	 */
	@Override
	public RedisScriptingCommands scriptingCommands() {
		return queueingOr(RedisScriptingCommands.class, () -> this.parts.scripting(super::scriptingCommands));
	}

	/**
	 * Refused while a transaction queues: the raw command would run at once, outside the transaction.
	 */
	@Override
	public Object execute(String command, byte[]... args) {
		if (this.parts.isQueueing()) {
			throw new InvalidDataAccessApiUsageException("execute(\"" + command
					+ "\", …) cannot be part of a transaction on a Redis Cluster: use the command groups");
		}
		return super.execute(command, args);
	}

	/**
	 * While a transaction queues (transactions feature), its command groups route each call to the slot's master.
	 */
	private <T> T queueingOr(Class<T> group, Supplier<T> direct) {
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

	private RedisStringCommands composedStrings() {
		return this.parts.strings(super::stringCommands);
	}

	private RedisKeyCommands composedKeys() {
		return this.parts.keys(super::keyCommands);
	}

	private StatefulRedisClusterConnection<byte[], byte[]> nativeClusterConnection() {
		StatefulRedisClusterConnection<byte[], byte[]> connection = this.sharedConnection;
		if (connection == null) {
			connection = ((RedisAdvancedClusterAsyncCommands<byte[], byte[]>) getNativeConnection())
				.getStatefulConnection();
		}
		return connection;
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
