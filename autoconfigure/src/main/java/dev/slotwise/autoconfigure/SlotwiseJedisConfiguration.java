package dev.slotwise.autoconfigure;

import java.util.Map;

import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.connection.SlotwiseJedisConnectionFactoryCustomizer;
import dev.slotwise.internal.metrics.JedisClusterPoolMeters;
import dev.slotwise.internal.topology.JedisRetryBudget;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.commons.pool2.impl.GenericObjectPool;
import redis.clients.jedis.Jedis;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * Slotwise for Jedis: Spring Boot's {@link JedisConnectionFactory} replaced by a
 * {@link SlotwiseJedisConnectionFactory} in cluster mode, whose Jedis cluster client
 * retries a command no longer than the configured timeout. The pool lives in
 * {@link SlotwisePoolConfiguration}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ Jedis.class, JedisConnectionFactory.class, GenericObjectPool.class })
class SlotwiseJedisConfiguration {

	static final String CLIENT = SlotwisePoolConfiguration.JEDIS;

	private static final String RETRY_CONTRIBUTOR = "slotwise-retry-budget";

	/**
	 * Bounds the total retry time of a command by {@code spring.data.redis.timeout} (the
	 * factory's read timeout), where Jedis's default is that timeout times the attempts;
	 * the application's own Jedis retry settings win.
	 */
	@Bean
	@Order(SlotwiseOrder.TOPOLOGY)
	SlotwiseJedisConnectionFactoryCustomizer slotwiseJedisRetryBudgetCustomizer() {
		return (factory) -> {
			JedisRetryBudget budget = new JedisRetryBudget(factory.getClientConfiguration().getReadTimeout());
			factory.addClientBuilderCustomizer(RETRY_CONTRIBUTOR, budget::apply);
			factory.addClientBuilderFinisher(RETRY_CONTRIBUTOR, budget::finish);
		};
	}

	/**
	 * Meters for the per-node pools, a {@code MeterBinder} Spring Boot binds to the
	 * application's registry; they follow the pools of the Slotwise cluster factory's
	 * client as nodes come and go.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBooleanProperty(name = "slotwise.metrics.enabled", matchIfMissing = true)
	static class PoolMetricsConfiguration {

		@Bean(destroyMethod = "close")
		@ConditionalOnMissingBean
		JedisClusterPoolMeters slotwiseJedisPoolMeters() {
			return new JedisClusterPoolMeters();
		}

		@Bean
		@Order(SlotwiseOrder.POOL_METRICS)
		SlotwiseJedisConnectionFactoryCustomizer slotwisePoolMetricsCustomizer(
				ObjectProvider<JedisClusterPoolMeters> meters) {
			return (factory) -> meters.ifAvailable((poolMeters) -> {
				poolMeters.follow(
						() -> factory.isRunning() ? factory.getRequiredClusterClient().getClusterNodes() : Map.of());
				factory.addClientStartedListener("slotwise-pool-metrics", (client) -> poolMeters.sync());
			});
		}

	}

	@Bean
	static SlotwiseJedisConnectionFactoryPostProcessor slotwiseJedisConnectionFactoryPostProcessor() {
		return new SlotwiseJedisConnectionFactoryPostProcessor();
	}

	/**
	 * Replaces the {@link JedisConnectionFactory} Spring Boot created for a cluster by a
	 * {@link SlotwiseJedisConnectionFactory} with the same configuration, before it
	 * starts. Factories the application declared itself are left alone.
	 */
	static final class SlotwiseJedisConnectionFactoryPostProcessor
			extends SpringBootConnectionFactoryReplacer<JedisConnectionFactory> {

		SlotwiseJedisConnectionFactoryPostProcessor() {
			super(JedisConnectionFactory.class);
		}

		@Override
		protected Object replace(JedisConnectionFactory original, ConfigurableListableBeanFactory beanFactory) {
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

	}

}
