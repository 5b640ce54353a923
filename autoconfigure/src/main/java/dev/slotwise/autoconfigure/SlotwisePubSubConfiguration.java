package dev.slotwise.autoconfigure;

import dev.slotwise.internal.cluster.JedisClusterFeature;
import dev.slotwise.internal.cluster.LettuceClusterFeature;
import dev.slotwise.internal.cluster.PubSubFeature;
import dev.slotwise.internal.pubsub.PubSubObserver;
import dev.slotwise.internal.pubsub.PubSubRuntime;
import io.lettuce.core.RedisClient;
import redis.clients.jedis.Jedis;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Pub/sub across the cluster, a feature of Slotwise's cluster connections: keyspace and
 * keyevent notifications subscribed on every master, and its threads (its meters are in
 * {@link SlotwiseMetersConfiguration}). {@code slotwise.pubsub.enabled=false} leaves
 * Spring Data Redis's subscriptions (on one node) in place.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "slotwise.pubsub.enabled", matchIfMissing = true)
class SlotwisePubSubConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	PubSubRuntime slotwisePubSubRuntime(SlotwiseProperties properties) {
		SlotwiseProperties.PubSub pubSub = properties.getPubsub();
		return PubSubRuntime.create(pubSub.getCheckInterval(), pubSub.getTimeout(), pubSub.getThreadNamePrefix());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Jedis.class, JedisConnectionFactory.class })
	static class JedisPubSubConfiguration {

		@Bean
		@Order(SlotwiseOrder.PUBSUB_FEATURE)
		JedisClusterFeature slotwiseJedisPubSubFeature(PubSubRuntime runtime,
				ObjectProvider<PubSubObserver.Source> observers) {
			return PubSubFeature.jedis(runtime,
					() -> FeatureObservers.pubSub(observers, SlotwiseJedisConfiguration.CLIENT));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ RedisClient.class, LettuceConnectionFactory.class })
	static class LettucePubSubConfiguration {

		@Bean
		@Order(SlotwiseOrder.PUBSUB_FEATURE)
		LettuceClusterFeature slotwiseLettucePubSubFeature(PubSubRuntime runtime,
				ObjectProvider<PubSubObserver.Source> observers) {
			return PubSubFeature.lettuce(runtime,
					() -> FeatureObservers.pubSub(observers, SlotwiseLettuceConfiguration.CLIENT));
		}

	}

}
