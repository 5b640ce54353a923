package dev.slotwise.internal.pubsub;

import java.util.function.Supplier;

import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.pubsub.ShardedPubSub;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;

/**
 * Creates the {@link ClusterPubSub} of a running Lettuce cluster client.
 */
public final class LettucePubSubSupport {

	private LettucePubSubSupport() {
	}

	/**
	 * Creates cluster subscriptions over a Lettuce client.
	 * @param runtime the threads and settings
	 * @param client the running cluster client
	 * @param commands a cluster connection to read the topology on
	 * ({@code CLUSTER NODES}, one node at a time)
	 * @param observer sees subscriptions and messages
	 * @return the subscriptions' entry point
	 */
	public static ClusterPubSub create(PubSubRuntime runtime, RedisClusterClient client,
			Supplier<StatefulRedisClusterConnection<byte[], byte[]>> commands, PubSubObserver observer) {
		return new ClusterPubSub(runtime, () -> new LettuceNodeLinks(client, commands, runtime),
				() -> new LettuceNodeLinks(client, commands, runtime), observer);
	}

	/**
	 * Creates sharded pub/sub over a Lettuce connection factory. Lettuce's cluster
	 * {@code spublish}, on the factory's native cluster connection, publishes.
	 * @param runtime the threads and settings
	 * @param factory the factory, started before the first call
	 * @param observer sees subscriptions and messages
	 * @return the sharded pub/sub
	 */
	public static ShardedPubSub sharded(PubSubRuntime runtime, SlotwiseLettuceConnectionFactory factory,
			PubSubObserver observer) {
		return new FactoryShardedPubSub(() -> client(factory),
				() -> create(runtime, client(factory), factory::getOrCreateNativeClusterConnection, observer),
				(channel, message) -> factory.getOrCreateNativeClusterConnection().sync().spublish(channel, message));
	}

	private static RedisClusterClient client(SlotwiseLettuceConnectionFactory factory) {
		if (factory.getNativeClient() instanceof RedisClusterClient client) {
			return client;
		}
		throw new IllegalStateException("Sharded pub/sub needs a started Redis Cluster connection factory");
	}

}
