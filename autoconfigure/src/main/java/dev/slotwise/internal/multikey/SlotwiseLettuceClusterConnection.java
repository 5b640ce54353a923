package dev.slotwise.internal.multikey;

import java.time.Duration;
import java.util.function.Function;

import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterCommandExecutor;
import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisStringCommands;
import org.springframework.data.redis.connection.lettuce.LettuceClusterConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;

/**
 * A {@link LettuceClusterConnection} whose cross-slot {@code mGet}, {@code mSet}, {@code del}, {@code unlink} and
 * {@code exists} run on the multi-key engine over Lettuce's node connections; every other command is Spring Data
 * Redis's.
 */
final class SlotwiseLettuceClusterConnection extends LettuceClusterConnection {

	private final @Nullable StatefulRedisClusterConnection<byte[], byte[]> sharedConnection;

	private final EngineHolder<StatefulRedisClusterConnection<byte[], byte[]>, MultiKeyEngine> engine;

	private final MultiKeyCommands multiKey;

	SlotwiseLettuceClusterConnection(@Nullable StatefulRedisClusterConnection<byte[], byte[]> sharedConnection,
			LettuceConnectionProvider connectionProvider, ClusterTopologyProvider topologyProvider,
			ClusterCommandExecutor executor, Duration timeout,
			Function<StatefulRedisClusterConnection<byte[], byte[]>, MultiKeyEngine> engines) {
		super(sharedConnection, connectionProvider, topologyProvider, executor, timeout);
		this.sharedConnection = sharedConnection;
		this.engine = new EngineHolder<>(engines);
		this.multiKey = new MultiKeyCommands(this::engine, () -> isPipelined() || isQueueing());
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
	 * Creates the engine on first use, so that a dedicated connection (when sharing is off) opens only when a
	 * cross-slot call needs it.
	 */
	private MultiKeyEngine engine() {
		StatefulRedisClusterConnection<byte[], byte[]> connection = this.sharedConnection;
		if (connection == null) {
			connection = ((RedisAdvancedClusterAsyncCommands<byte[], byte[]>) getNativeConnection())
				.getStatefulConnection();
		}
		return this.engine.get(connection);
	}

}
