package dev.slotwise.autoconfigure;

import dev.slotwise.internal.health.PubSubHealthIndicator;
import dev.slotwise.internal.pubsub.LazyShardedPubSub;
import dev.slotwise.internal.pubsub.PubSubObserver;
import dev.slotwise.internal.pubsub.PubSubRuntime;
import dev.slotwise.pubsub.ShardedMessageListenerContainer;
import dev.slotwise.pubsub.ShardedPubSub;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Sharded pub/sub ({@code SSUBSCRIBE}/{@code SPUBLISH}) over Slotwise's cluster
 * connection factory: a {@link ShardedPubSub} and a
 * {@link ShardedMessageListenerContainer}, each backing off when the application declares
 * its own, and the {@code redisPubSub} health contributor. Off with
 * {@code slotwise.enabled=false} or {@code slotwise.pubsub.enabled=false}; the container
 * alone with {@code slotwise.pubsub.sharded-container=false}.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, SlotwiseAutoConfiguration.class })
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "slotwise.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "slotwise.pubsub.enabled", matchIfMissing = true)
@Conditional(OnSupportedLibrariesCondition.class)
@ConditionalOnBean({ RedisConnectionFactory.class, PubSubRuntime.class })
public final class SlotwisePubSubAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ShardedPubSub slotwiseShardedPubSub(RedisConnectionFactory connectionFactory, PubSubRuntime runtime,
			ObjectProvider<PubSubObserver.Source> meters) {
		PubSubObserver.Source source = meters.getIfAvailable();
		return new LazyShardedPubSub(connectionFactory, runtime,
				(client) -> (source != null) ? source.forClient(client) : PubSubObserver.NONE);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "slotwise.pubsub.sharded-container", matchIfMissing = true)
	ShardedMessageListenerContainer shardedMessageListenerContainer(ShardedPubSub shardedPubSub) {
		return new ShardedMessageListenerContainer(shardedPubSub);
	}

	/**
	 * The {@code redisPubSub} health contributor, when Actuator's health support is
	 * present.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
	@ConditionalOnEnabledHealthIndicator("redisPubSub")
	static class PubSubHealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "redisPubSubHealthIndicator")
		PubSubHealthIndicator redisPubSubHealthIndicator(PubSubRuntime runtime) {
			return new PubSubHealthIndicator(runtime);
		}

	}

}
