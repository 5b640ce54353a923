package dev.slotwise.autoconfigure;

import dev.slotwise.internal.health.ClusterHealthIndicator;
import dev.slotwise.internal.nearcache.NearCacheRuntime;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.health.DataRedisHealthContributorAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.health.DataRedisReactiveHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.CompositeHealthContributorConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Actuator health for Redis behind Slotwise: the {@code redis} health contributor becomes
 * a {@link ClusterHealthIndicator} per connection factory, in place of Spring Boot's
 * (which sends {@code CLUSTER INFO} and, through Spring Data Redis's topology,
 * {@code CLUSTER NODES}). It backs off when the application defines its own
 * {@code redisHealthIndicator} or {@code redisHealthContributor}, with
 * {@code management.health.redis.enabled=false} and with {@code slotwise.enabled=false}.
 * With the near cache on, its details show the invalidation link to each node.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class,
		before = { DataRedisHealthContributorAutoConfiguration.class,
				DataRedisReactiveHealthContributorAutoConfiguration.class })
@ConditionalOnClass({ RedisConnectionFactory.class, HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "slotwise.enabled", matchIfMissing = true)
@Conditional(OnSupportedLibrariesCondition.class)
@ConditionalOnEnabledHealthIndicator("redis")
public final class SlotwiseHealthAutoConfiguration
		extends CompositeHealthContributorConfiguration<ClusterHealthIndicator, RedisConnectionFactory> {

	SlotwiseHealthAutoConfiguration(ObjectProvider<NearCacheRuntime> nearCache) {
		// The near cache (slotwise.near-cache.enabled) adds its invalidation links to the
		// details, never to the status.
		super((factory) -> new ClusterHealthIndicator(factory, nearCache::getIfAvailable));
	}

	@Bean
	@ConditionalOnMissingBean(name = { "redisHealthIndicator", "redisHealthContributor" })
	HealthContributor redisHealthContributor(ConfigurableListableBeanFactory beanFactory) {
		return createContributor(beanFactory, RedisConnectionFactory.class);
	}

}
