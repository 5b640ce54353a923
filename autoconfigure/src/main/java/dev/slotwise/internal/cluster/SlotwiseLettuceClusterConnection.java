package dev.slotwise.internal.cluster;

import java.time.Duration;
import java.util.List;

import dev.slotwise.internal.topology.RefreshableTopologyProvider;
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
 * A {@link LettuceClusterConnection} composed of the features the application left on
 * ({@link LettuceClusterFeature}): their layers in front of the string and key commands
 * (cross-slot multi-key commands on the engine over Lettuce's node connections,
 * cluster-wide {@code scan} and {@code keys}) and the subscriptions across the cluster.
 * Every other command is Spring Data Redis's.
 */
final class SlotwiseLettuceClusterConnection extends LettuceClusterConnection {

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
		return this.parts.stringCommands(super::stringCommands);
	}

	@Override
	public RedisKeyCommands keyCommands() {
		return this.parts.keyCommands(super::keyCommands);
	}

	@Override
	public RedisHashCommands hashCommands() {
		return this.parts.commands(RedisHashCommands.class, super::hashCommands);
	}

	@Override
	public RedisListCommands listCommands() {
		return this.parts.commands(RedisListCommands.class, super::listCommands);
	}

	@Override
	public RedisSetCommands setCommands() {
		return this.parts.commands(RedisSetCommands.class, super::setCommands);
	}

	@Override
	public RedisZSetCommands zSetCommands() {
		return this.parts.commands(RedisZSetCommands.class, super::zSetCommands);
	}

	@Override
	public RedisHyperLogLogCommands hyperLogLogCommands() {
		return this.parts.commands(RedisHyperLogLogCommands.class, super::hyperLogLogCommands);
	}

	@Override
	public RedisGeoCommands geoCommands() {
		return this.parts.commands(RedisGeoCommands.class, super::geoCommands);
	}

	@Override
	public RedisStreamCommands streamCommands() {
		return this.parts.commands(RedisStreamCommands.class, super::streamCommands);
	}

	/**
	 * While a transaction queues, refuses every call: server commands have no key to
	 * choose a slot by.
	 */
	@Override
	public RedisClusterServerCommands serverCommands() {
		return this.parts.commands(RedisClusterServerCommands.class, super::serverCommands);
	}

	/**
	 * With the transactions feature on, a script whose keys span slots is refused before
	 * it is sent.
	 */
	@Override
	public RedisScriptingCommands scriptingCommands() {
		return this.parts.scriptingCommands(super::scriptingCommands);
	}

	/**
	 * Refused while a transaction queues: the raw command would run at once, outside the
	 * transaction.
	 */
	@Override
	public Object execute(String command, byte[]... args) {
		return this.parts.execute(command, args, super::execute);
	}

	@Override
	public void multi() {
		this.parts.multi(super::multi);
	}

	@Override
	public boolean isQueueing() {
		return this.parts.isQueueing(super::isQueueing);
	}

	@Override
	public List<Object> exec() {
		return this.parts.exec(super::exec);
	}

	@Override
	public void discard() {
		this.parts.discard(super::discard);
	}

	@Override
	public void watch(byte[]... keys) {
		this.parts.watch(keys, super::watch);
	}

	@Override
	public void unwatch() {
		this.parts.unwatch(super::unwatch);
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
	 * Subscribes across the cluster when the pub/sub feature is on: keyspace and keyevent
	 * channels and patterns on every master (each notifies of its own keys only),
	 * following failovers and new masters; other channels on one master.
	 */
	@Override
	public void subscribe(MessageListener listener, byte[]... channels) {
		this.parts.subscribe(listener, channels, isPipelined() || isQueueing(), super::subscribe);
	}

	/**
	 * Subscribes patterns across the cluster, as {@link #subscribe(MessageListener,
	 * byte[]...)} does channels.
	 */
	@Override
	public void pSubscribe(MessageListener listener, byte[]... patterns) {
		this.parts.pSubscribe(listener, patterns, isPipelined() || isQueueing(), super::pSubscribe);
	}

	@Override
	public @Nullable Subscription getSubscription() {
		return this.parts.getSubscription(super::getSubscription);
	}

	@Override
	public boolean isSubscribed() {
		return this.parts.isSubscribed(super::isSubscribed);
	}

	@Override
	public void close() {
		this.parts.close();
		super.close();
	}

}
