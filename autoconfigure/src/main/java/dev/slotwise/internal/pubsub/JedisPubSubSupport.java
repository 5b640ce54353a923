package dev.slotwise.internal.pubsub;

import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.pubsub.ShardedPubSub;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.data.redis.connection.ClusterTopologyProvider;

/**
 * Creates the {@link ClusterPubSub} of a running Jedis cluster client.
 */
public final class JedisPubSubSupport {

	private JedisPubSubSupport() {
	}

	/**
	 * Creates cluster subscriptions over a Jedis client.
	 * @param runtime the threads and settings
	 * @param client the running cluster client
	 * @param topologyProvider the factory's topology provider; when it can be
	 * invalidated, each check reads the topology afresh (paced by the provider)
	 * @param observer sees subscriptions and messages
	 * @return the subscriptions' entry point
	 */
	public static ClusterPubSub create(PubSubRuntime runtime, RedisClusterClient client,
			ClusterTopologyProvider topologyProvider, PubSubObserver observer) {
		return new ClusterPubSub(runtime, () -> new JedisNodeLinks(client, topologyProvider, runtime),
				() -> new JedisNodeLinks(client, topologyProvider, runtime), observer);
	}

	/**
	 * Creates sharded pub/sub over a Jedis connection factory. Jedis's
	 * {@code RedisClusterClient.spublish} publishes.
	 * @param runtime the threads and settings
	 * @param factory the factory, started before the first call
	 * @param observer sees subscriptions and messages
	 * @return the sharded pub/sub
	 */
	public static ShardedPubSub sharded(PubSubRuntime runtime, SlotwiseJedisConnectionFactory factory,
			PubSubObserver observer) {
		return new FactoryShardedPubSub(
				factory::getRequiredClusterClient, () -> create(runtime, factory.getRequiredClusterClient(),
						factory.getRequiredTopologyProvider(), observer),
				(channel, message) -> factory.getRequiredClusterClient().spublish(channel, message));
	}

}
