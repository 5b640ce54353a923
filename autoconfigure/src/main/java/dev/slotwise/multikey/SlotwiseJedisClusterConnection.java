package dev.slotwise.multikey;

import redis.clients.jedis.RedisClusterClient;

import org.springframework.data.redis.connection.ClusterCommandExecutor;
import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisStringCommands;
import org.springframework.data.redis.connection.jedis.JedisClusterConnection;

/**
 * A {@link JedisClusterConnection} whose cross-slot {@code mGet}, {@code mSet}, {@code del}, {@code unlink} and
 * {@code exists} run on the multi-key engine; every other command is Spring Data Redis's.
 */
final class SlotwiseJedisClusterConnection extends JedisClusterConnection {

	private final MultiKeyCommands multiKey;

	SlotwiseJedisClusterConnection(RedisClusterClient client, ClusterCommandExecutor executor,
			ClusterTopologyProvider topologyProvider, MultiKeyEngine engine) {
		super(client, executor, topologyProvider);
		this.multiKey = new MultiKeyCommands(() -> engine, () -> isPipelined() || isQueueing());
	}

	@Override
	public RedisStringCommands stringCommands() {
		return this.multiKey.strings(super::stringCommands);
	}

	@Override
	public RedisKeyCommands keyCommands() {
		return this.multiKey.keys(super::keyCommands);
	}

}
