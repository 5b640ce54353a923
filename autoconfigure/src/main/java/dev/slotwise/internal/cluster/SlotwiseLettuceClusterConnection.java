package dev.slotwise.internal.cluster;

import java.time.Duration;
import java.util.List;

import dev.slotwise.internal.topology.RefreshableTopologyProvider;
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
		return composedStrings();
	}

	@Override
	public RedisKeyCommands keyCommands() {
		return composedKeys();
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
