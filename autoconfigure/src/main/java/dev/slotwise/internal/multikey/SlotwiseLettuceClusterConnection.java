package dev.slotwise.internal.multikey;

import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.slotwise.internal.pubsub.ClusterPubSub;
import dev.slotwise.internal.pubsub.ConnectionSubscription;
import dev.slotwise.internal.transaction.ClusterTransaction;
import dev.slotwise.internal.transaction.ScriptSlotCheck;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

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
import org.springframework.data.redis.connection.lettuce.LettuceClusterConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;

/**
 * A {@link LettuceClusterConnection} whose cross-slot {@code mGet}, {@code mSet}, {@code del}, {@code unlink} and
 * {@code exists} run on the multi-key engine over Lettuce's node connections, and whose {@code scan(ScanOptions)} and
 * {@code keys(byte[])} walk every master in parallel when the keyspace walks are on; every other command is Spring
 * Data Redis's. With transactions on, {@code multi()}, {@code exec()}, {@code discard()}, {@code watch()} and
 * {@code unwatch()} run a transaction on a dedicated connection to the master of its keys' slot
 * ({@code dev.slotwise.internal.transaction}; never on the shared connection), whose command groups the connection
 * hands out while queueing, and scripts whose keys span slots are refused before they are sent.
 */
final class SlotwiseLettuceClusterConnection extends LettuceClusterConnection {

	private final @Nullable StatefulRedisClusterConnection<byte[], byte[]> sharedConnection;

	private final EngineHolder<StatefulRedisClusterConnection<byte[], byte[]>, MultiKeyEngine> engine;

	private final MultiKeyCommands multiKey;

	/** Subscriptions across the cluster (keyspace events on every master); {@code null} leaves Spring Data's. */
	private final @Nullable ConnectionSubscription subscription;

	private final @Nullable Function<StatefulRedisClusterConnection<byte[], byte[]>, KeyspaceCommands> keyspaces;

	private @Nullable KeyspaceCommands keyspace;

	/** Transactions on one slot's master; {@code null} leaves Spring Data's refusal. */
	private final @Nullable ClusterTransaction transaction;

	private final @Nullable ScriptSlotCheck scripts;

	SlotwiseLettuceClusterConnection(@Nullable StatefulRedisClusterConnection<byte[], byte[]> sharedConnection,
			LettuceConnectionProvider connectionProvider, ClusterTopologyProvider topologyProvider,
			ClusterCommandExecutor executor, Duration timeout,
			Function<StatefulRedisClusterConnection<byte[], byte[]>, MultiKeyEngine> engines) {
		this(sharedConnection, connectionProvider, topologyProvider, executor, timeout, engines, null);
	}

	SlotwiseLettuceClusterConnection(@Nullable StatefulRedisClusterConnection<byte[], byte[]> sharedConnection,
			LettuceConnectionProvider connectionProvider, ClusterTopologyProvider topologyProvider,
			ClusterCommandExecutor executor, Duration timeout,
			Function<StatefulRedisClusterConnection<byte[], byte[]>, MultiKeyEngine> engines,
			@Nullable ClusterPubSub pubSub) {
		this(sharedConnection, connectionProvider, topologyProvider, executor, timeout, engines, pubSub, null);
	}

	/**
	 * @param pubSub subscriptions across the cluster, or {@code null} to leave Spring Data Redis's
	 * @param keyspaces creates the cluster-wide key walks over a native connection ({@code scan(ScanOptions)},
	 * {@code keys(byte[])}), or {@code null} to leave those to Spring Data Redis
	 */
	SlotwiseLettuceClusterConnection(@Nullable StatefulRedisClusterConnection<byte[], byte[]> sharedConnection,
			LettuceConnectionProvider connectionProvider, ClusterTopologyProvider topologyProvider,
			ClusterCommandExecutor executor, Duration timeout,
			Function<StatefulRedisClusterConnection<byte[], byte[]>, MultiKeyEngine> engines,
			@Nullable ClusterPubSub pubSub,
			@Nullable Function<StatefulRedisClusterConnection<byte[], byte[]>, KeyspaceCommands> keyspaces) {
		this(sharedConnection, connectionProvider, topologyProvider, executor, timeout, engines, pubSub, keyspaces,
				null);
	}

	/**
	 * @param transactions creates the connection's transaction state from its "is pipelined" test, or {@code null}
	 * to leave transactions to Spring Data Redis (which refuses them on a cluster)
	 */
	SlotwiseLettuceClusterConnection(@Nullable StatefulRedisClusterConnection<byte[], byte[]> sharedConnection,
			LettuceConnectionProvider connectionProvider, ClusterTopologyProvider topologyProvider,
			ClusterCommandExecutor executor, Duration timeout,
			Function<StatefulRedisClusterConnection<byte[], byte[]>, MultiKeyEngine> engines,
			@Nullable ClusterPubSub pubSub,
			@Nullable Function<StatefulRedisClusterConnection<byte[], byte[]>, KeyspaceCommands> keyspaces,
			@Nullable Function<BooleanSupplier, ClusterTransaction> transactions) {
		super(sharedConnection, connectionProvider, topologyProvider, executor, timeout);
		this.transaction = (transactions != null) ? transactions.apply(this::isPipelined) : null;
		this.scripts = (transactions != null) ? new ScriptSlotCheck() : null;
		this.subscription = (pubSub != null) ? new ConnectionSubscription(pubSub, false) : null;
		this.sharedConnection = sharedConnection;
		this.engine = new EngineHolder<>(engines);
		this.keyspaces = keyspaces;
		this.multiKey = new MultiKeyCommands(this::engine, () -> isPipelined() || isQueueing(),
				(keyspaces != null) ? this::keyspace : null);
	}

	@Override
	public RedisStringCommands stringCommands() {
		return queueingOr(RedisStringCommands.class, () -> this.multiKey.strings(super::stringCommands));
	}

	@Override
	public RedisKeyCommands keyCommands() {
		return queueingOr(RedisKeyCommands.class, () -> this.multiKey.keys(super::keyCommands));
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
	 * While queueing, refuses every call: server commands have no key to choose a slot by.
	 */
	@Override
	public RedisClusterServerCommands serverCommands() {
		return queueingOr(RedisClusterServerCommands.class, super::serverCommands);
	}

	/**
	 * With transactions on, a script whose keys span slots is refused before it is sent.
	 */
	@Override
	public RedisScriptingCommands scriptingCommands() {
		ScriptSlotCheck scripts = this.scripts;
		return queueingOr(RedisScriptingCommands.class,
				(scripts != null) ? () -> scripts.wrap(super.scriptingCommands()) : super::scriptingCommands);
	}

	/**
	 * Refused while a transaction queues: the raw command would run at once, outside the transaction.
	 */
	@Override
	public Object execute(String command, byte[]... args) {
		if (this.transaction != null && this.transaction.isQueueing()) {
			throw new InvalidDataAccessApiUsageException("execute(\"" + command
					+ "\", …) cannot be part of a transaction on a Redis Cluster: use the command groups");
		}
		return super.execute(command, args);
	}

	private <T> T queueingOr(Class<T> group, Supplier<T> direct) {
		ClusterTransaction transaction = this.transaction;
		return (transaction != null && transaction.isQueueing()) ? transaction.commands(group) : direct.get();
	}

	@Override
	public void multi() {
		if (this.transaction == null) {
			super.multi();
			return;
		}
		this.transaction.multi();
	}

	@Override
	public boolean isQueueing() {
		return (this.transaction != null) ? this.transaction.isQueueing() : super.isQueueing();
	}

	@Override
	public List<Object> exec() {
		return (this.transaction != null) ? this.transaction.exec() : super.exec();
	}

	@Override
	public void discard() {
		if (this.transaction == null) {
			super.discard();
			return;
		}
		this.transaction.discard();
	}

	@Override
	public void watch(byte[]... keys) {
		if (this.transaction == null) {
			super.watch(keys);
			return;
		}
		this.transaction.watch(keys);
	}

	@Override
	public void unwatch() {
		if (this.transaction == null) {
			super.unwatch();
			return;
		}
		this.transaction.unwatch();
	}

	/**
	 * Creates the key walks on first use, over the same native connection as the engine.
	 */
	private KeyspaceCommands keyspace() {
		KeyspaceCommands keyspace = this.keyspace;
		if (keyspace == null) {
			keyspace = java.util.Objects.requireNonNull(this.keyspaces).apply(nativeClusterConnection());
			this.keyspace = keyspace;
		}
		return keyspace;
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
	 * Creates the engine on first use, so that a dedicated connection (when sharing is off) opens only when a
	 * cross-slot call needs it.
	 */
	private MultiKeyEngine engine() {
		return this.engine.get(nativeClusterConnection());
	}

	/**
	 * Subscribes across the cluster: keyspace and keyevent channels and patterns on every master (each notifies of
	 * its own keys only), following failovers and new masters; other channels on one master.
	 */
	@Override
	public void subscribe(MessageListener listener, byte[]... channels) {
		ConnectionSubscription subscription = this.subscription;
		if (subscription == null) {
			super.subscribe(listener, channels);
			return;
		}
		subscription.subscribe(listener, channels, new byte[0][], isPipelined() || isQueueing());
	}

	/**
	 * Subscribes patterns across the cluster, as {@link #subscribe(MessageListener, byte[]...)} does channels.
	 */
	@Override
	public void pSubscribe(MessageListener listener, byte[]... patterns) {
		ConnectionSubscription subscription = this.subscription;
		if (subscription == null) {
			super.pSubscribe(listener, patterns);
			return;
		}
		subscription.subscribe(listener, new byte[0][], patterns, isPipelined() || isQueueing());
	}

	@Override
	public @Nullable Subscription getSubscription() {
		ConnectionSubscription subscription = this.subscription;
		return (subscription != null) ? subscription.get() : super.getSubscription();
	}

	@Override
	public boolean isSubscribed() {
		ConnectionSubscription subscription = this.subscription;
		return (subscription != null) ? subscription.isSubscribed() : super.isSubscribed();
	}

	@Override
	public void close() {
		if (this.transaction != null) {
			this.transaction.close();
		}
		ConnectionSubscription subscription = this.subscription;
		if (subscription != null) {
			subscription.close();
		}
		super.close();
	}

}
