package dev.slotwise.internal.cluster;

import java.util.function.Supplier;

import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.internal.multikey.EngineHolder;
import dev.slotwise.internal.pubsub.ClusterPubSub;
import dev.slotwise.internal.pubsub.ConnectionSubscription;
import dev.slotwise.internal.pubsub.JedisPubSubSupport;
import dev.slotwise.internal.pubsub.LettucePubSubSupport;
import dev.slotwise.internal.pubsub.PubSubObserver;
import dev.slotwise.internal.pubsub.PubSubRuntime;
import io.lettuce.core.cluster.RedisClusterClient;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Subscriptions across the cluster ({@code slotwise.pubsub.enabled}): keyspace and
 * keyevent channels and patterns on every master (each notifies of its own keys only),
 * following failovers and new masters; other channels on one master.
 */
public final class PubSubFeature {

	/** The feature's name. */
	public static final String NAME = "pubsub";

	private PubSubFeature() {
	}

	/**
	 * Returns the feature over Jedis.
	 * @param pubSubRuntime the threads of cluster subscriptions, owned by the caller
	 * @param observers supplies what sees subscriptions and messages, asked when the
	 * feature starts
	 * @return the feature
	 */
	public static JedisClusterFeature jedis(PubSubRuntime pubSubRuntime, Supplier<PubSubObserver> observers) {
		check(pubSubRuntime, observers);
		return JedisClusterFeature.of(NAME, (runtime) -> {
			ClusterPubSub pubSub = JedisPubSubSupport.create(pubSubRuntime, runtime.client(),
					runtime.topologyProvider(), observers.get());
			return (connection) -> subscriptions(new ConnectionSubscription(pubSub, true));
		});
	}

	/**
	 * Returns the feature over Lettuce.
	 * @param pubSubRuntime the threads of cluster subscriptions, owned by the caller
	 * @param observers supplies what sees subscriptions and messages, asked when the
	 * feature starts
	 * @return the feature
	 */
	public static LettuceClusterFeature lettuce(PubSubRuntime pubSubRuntime, Supplier<PubSubObserver> observers) {
		check(pubSubRuntime, observers);
		return LettuceClusterFeature.of(NAME, (runtime) -> {
			PubSubBinding binding = new PubSubBinding(runtime.factory(), pubSubRuntime, observers.get());
			return (connection) -> {
				ClusterPubSub pubSub = binding.current();
				return (pubSub != null) ? subscriptions(new ConnectionSubscription(pubSub, false))
						: ConnectionPart.NONE;
			};
		});
	}

	private static ConnectionPart subscriptions(ConnectionSubscription subscription) {
		return new ConnectionPart() {

			@Override
			public ConnectionSubscription subscription() {
				return subscription;
			}

		};
	}

	private static void check(PubSubRuntime pubSubRuntime, Supplier<PubSubObserver> observers) {
		Assert.notNull(pubSubRuntime, "'pubSubRuntime' must not be null");
		Assert.notNull(observers, "'observers' must not be null");
	}

	/**
	 * One {@link ClusterPubSub} per started client: a restarted factory has a new one.
	 */
	private static final class PubSubBinding {

		private final SlotwiseLettuceConnectionFactory factory;

		private final EngineHolder<RedisClusterClient, ClusterPubSub> pubSub;

		PubSubBinding(SlotwiseLettuceConnectionFactory factory, PubSubRuntime runtime, PubSubObserver observer) {
			this.factory = factory;
			this.pubSub = new EngineHolder<>((client) -> LettucePubSubSupport.create(runtime, client,
					factory::getOrCreateNativeClusterConnection, observer));
		}

		@Nullable ClusterPubSub current() {
			return (this.factory.getNativeClient() instanceof RedisClusterClient client) ? this.pubSub.get(client)
					: null;
		}

	}

}
