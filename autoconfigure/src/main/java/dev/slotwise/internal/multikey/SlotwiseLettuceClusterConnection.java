package dev.slotwise.internal.multikey;

import java.time.Duration;
import java.util.function.Function;

import dev.slotwise.internal.pubsub.ClusterPubSub;
import dev.slotwise.internal.pubsub.ConnectionSubscription;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterCommandExecutor;
import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisStringCommands;
import org.springframework.data.redis.connection.Subscription;
import org.springframework.data.redis.connection.lettuce.LettuceClusterConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;

/**
 * A {@link LettuceClusterConnection} whose cross-slot {@code mGet}, {@code mSet}, {@code del}, {@code unlink} and
 * {@code exists} run on the multi-key engine over Lettuce's node connections, and whose {@code scan(ScanOptions)} and
 * {@code keys(byte[])} walk every master in parallel when the keyspace walks are on; every other command is Spring
 * Data Redis's.
 */
final class SlotwiseLettuceClusterConnection extends LettuceClusterConnection {

	private final @Nullable StatefulRedisClusterConnection<byte[], byte[]> sharedConnection;

	private final EngineHolder<StatefulRedisClusterConnection<byte[], byte[]>, MultiKeyEngine> engine;

	private final MultiKeyCommands multiKey;

	/** Subscriptions across the cluster (keyspace events on every master); {@code null} leaves Spring Data's. */
	private final @Nullable ConnectionSubscription subscription;

	private final @Nullable Function<StatefulRedisClusterConnection<byte[], byte[]>, KeyspaceCommands> keyspaces;

	private @Nullable KeyspaceCommands keyspace;

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
		super(sharedConnection, connectionProvider, topologyProvider, executor, timeout);
		this.subscription = (pubSub != null) ? new ConnectionSubscription(pubSub, false) : null;
		this.sharedConnection = sharedConnection;
		this.engine = new EngineHolder<>(engines);
		this.keyspaces = keyspaces;
		this.multiKey = new MultiKeyCommands(this::engine, () -> isPipelined() || isQueueing(),
				(keyspaces != null) ? this::keyspace : null);
	}

	@Override
	public RedisStringCommands stringCommands() {
		return this.multiKey.strings(super::stringCommands);
	}

	@Override
	public RedisKeyCommands keyCommands() {
		return this.multiKey.keys(super::keyCommands);
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
		ConnectionSubscription subscription = this.subscription;
		if (subscription != null) {
			subscription.close();
		}
		super.close();
	}

}
