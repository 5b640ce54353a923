package dev.slotwise.autoconfigure;

import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.connection.SlotwiseJedisConnectionFactoryCustomizer;
import dev.slotwise.metrics.JedisClusterPoolMeters;
import dev.slotwise.pool.JedisClusterPrewarmer;
import dev.slotwise.pool.PoolAdvisor;
import dev.slotwise.pool.PoolSettings;
import dev.slotwise.pool.TunedConnectionPoolConfig;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Jedis;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.data.redis.autoconfigure.JedisClientConfigurationBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * Slotwise for Jedis: the tuned pool, and Spring Boot's {@link JedisConnectionFactory} replaced by a
 * {@link SlotwiseJedisConnectionFactory} in cluster mode.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ Jedis.class, JedisConnectionFactory.class, GenericObjectPool.class })
class SlotwiseJedisConfiguration {

	static final String CLIENT = "jedis";

	@Bean
	@Order(Ordered.HIGHEST_PRECEDENCE)
	@ConditionalOnBooleanProperty(name = "slotwise.pool.enabled", matchIfMissing = true)
	JedisClientConfigurationBuilderCustomizer slotwiseJedisPoolCustomizer(SlotwiseProperties properties,
			Environment environment) {
		if (PoolSettingsResolver.isPoolingDisabledByUser(environment, CLIENT)) {
			return (builder) -> {
			};
		}
		PoolSettings settings = PoolSettingsResolver.resolve(properties.getPool(), environment, CLIENT);
		return (builder) -> builder.usePooling().poolConfig(new TunedConnectionPoolConfig(settings));
	}

	@Bean
	@Order(0)
	SlotwiseJedisConnectionFactoryCustomizer slotwisePoolConnectionFactoryCustomizer(SlotwiseProperties properties) {
		return (factory) -> {
			Object poolConfig = factory.getPoolConfig();
			if (poolConfig instanceof TunedConnectionPoolConfig tuned) {
				// Spring Data Redis copies a subset of the pool settings into the cluster client (dropping JMX, for
				// one); hand the client the whole configuration instead.
				factory.addClientBuilderCustomizer((builder) -> builder.poolConfig(tuned));
			}
			if (properties.getPool().isPrewarm()) {
				factory.addClientStartedListener((client) -> JedisClusterPrewarmer.prewarm(client,
						factory.getRequiredTopologyProvider().getTopology().getActiveMasterNodes()));
			}
		};
	}

	/**
	 * Meters for the per-node pools, bound when the factory starts if the application has a meter registry.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBooleanProperty(name = "slotwise.metrics.enabled", matchIfMissing = true)
	static class PoolMetricsConfiguration {

		@Bean
		@Order(10)
		SlotwiseJedisConnectionFactoryCustomizer slotwisePoolMetricsCustomizer(ObjectProvider<MeterRegistry> registry) {
			return (factory) -> factory.addClientStartedListener((client) -> registry
				.ifAvailable((meterRegistry) -> new JedisClusterPoolMeters(client).bindTo(meterRegistry)));
		}

	}

	@Bean
	static SlotwiseJedisConnectionFactoryPostProcessor slotwiseJedisConnectionFactoryPostProcessor() {
		return new SlotwiseJedisConnectionFactoryPostProcessor();
	}

	/**
	 * Replaces the {@link JedisConnectionFactory} Spring Boot created for a cluster by a
	 * {@link SlotwiseJedisConnectionFactory} with the same configuration, before it starts, and reviews the pool
	 * settings of every factory Spring Boot created. Factories the application declared itself are left alone.
	 */
	static final class SlotwiseJedisConnectionFactoryPostProcessor
			extends SpringBootConnectionFactoryReplacer<JedisConnectionFactory> {

		SlotwiseJedisConnectionFactoryPostProcessor() {
			super(JedisConnectionFactory.class);
		}

		@Override
		protected Object replace(JedisConnectionFactory original, ConfigurableListableBeanFactory beanFactory) {
			review(original, beanFactory);
			RedisClusterConfiguration cluster = original.getClusterConfiguration();
			if (cluster == null) {
				return original;
			}
			SlotwiseJedisConnectionFactory replacement = new SlotwiseJedisConnectionFactory(cluster,
					original.getClientConfiguration());
			replacement.setPhase(original.getPhase());
			replacement.setAutoStartup(original.isAutoStartup());
			replacement.setEarlyStartup(original.isEarlyStartup());
			replacement.setConvertPipelineAndTxResults(original.getConvertPipelineAndTxResults());
			springBootExecutor().ifPresent(replacement::setExecutor);
			beanFactory.getBeanProvider(SlotwiseJedisConnectionFactoryCustomizer.class)
				.orderedStream()
				.forEach((customizer) -> customizer.customize(replacement));
			return replacement;
		}

		private void review(JedisConnectionFactory factory, ConfigurableListableBeanFactory beanFactory) {
			SlotwiseProperties.Pool pool = beanFactory.getBean(SlotwiseProperties.class).getPool();
			if (!pool.isEnabled() || !pool.isAdvisor()) {
				return;
			}
			GenericObjectPoolConfig<?> config = factory.getPoolConfig();
			if ((Object) config instanceof TunedConnectionPoolConfig tuned) {
				PoolAdvisor.warn(tuned.getSettings(), "Jedis");
			}
			else if (config != null) {
				PoolAdvisor.warn(ForeignPoolConfigs.describe(config, "the application's Jedis pool configuration"),
						"Jedis");
			}
		}

	}

}
