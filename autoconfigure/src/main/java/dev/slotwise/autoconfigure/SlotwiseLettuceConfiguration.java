package dev.slotwise.autoconfigure;

import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactoryCustomizer;
import dev.slotwise.pool.LettuceClusterPrewarmer;
import dev.slotwise.pool.PoolAdvisor;
import dev.slotwise.pool.PoolSettings;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration.LettucePoolingClientConfigurationBuilder;

/**
 * Slotwise for Lettuce: the tuned pool when pooling is on, and Spring Boot's {@link LettuceConnectionFactory}
 * replaced by a {@link SlotwiseLettuceConnectionFactory} in cluster mode.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ RedisClient.class, LettuceConnectionFactory.class })
class SlotwiseLettuceConfiguration {

	static final String CLIENT = "lettuce";

	@Bean
	@Order(0)
	SlotwiseLettuceConnectionFactoryCustomizer slotwiseLettucePrewarmCustomizer(SlotwiseProperties properties) {
		return (factory) -> {
			if (properties.getPool().isPrewarm()) {
				factory.addStartedListener(SlotwiseLettuceConfiguration::prewarm);
			}
		};
	}

	private static void prewarm(SlotwiseLettuceConnectionFactory factory) {
		ReadFrom readFrom = factory.getClientConfiguration().getReadFrom().orElse(ReadFrom.UPSTREAM);
		boolean replicas = readFrom != ReadFrom.UPSTREAM && readFrom != ReadFrom.MASTER;
		StatefulRedisClusterConnection<byte[], byte[]> shared = factory.getOrCreateSharedClusterConnection();
		if (factory.getClientConfiguration() instanceof LettucePoolingClientConfiguration pooling) {
			LettuceClusterPrewarmer.prewarm(shared, factory.getRequiredConnectionProvider(),
					pooling.getPoolConfig().getMinIdle(), replicas);
		}
		else {
			LettuceClusterPrewarmer.prewarm(shared, null, 0, replicas);
		}
	}

	@Bean
	static SlotwiseLettuceConnectionFactoryPostProcessor slotwiseLettuceConnectionFactoryPostProcessor() {
		return new SlotwiseLettuceConnectionFactoryPostProcessor();
	}

	/**
	 * Tunes Lettuce's connection pool, which exists only when pooling is enabled (Spring Boot enables it whenever
	 * commons-pool2 is present unless {@code spring.data.redis.lettuce.pool.enabled=false}).
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(GenericObjectPool.class)
	@ConditionalOnBooleanProperty(name = "slotwise.pool.enabled", matchIfMissing = true)
	static class LettucePoolConfiguration {

		@Bean
		@Order(Ordered.HIGHEST_PRECEDENCE)
		LettuceClientConfigurationBuilderCustomizer slotwiseLettucePoolCustomizer(SlotwiseProperties properties,
				Environment environment) {
			if (PoolSettingsResolver.isPoolingDisabledByUser(environment, CLIENT)) {
				return (builder) -> {
				};
			}
			PoolSettings settings = PoolSettingsResolver.resolve(properties.getPool(), environment, CLIENT);
			return (builder) -> {
				if (builder instanceof LettucePoolingClientConfigurationBuilder pooling) {
					pooling.poolConfig(settings.applyTo(new GenericObjectPoolConfig<>()));
					if (properties.getPool().isAdvisor()) {
						PoolAdvisor.warn(settings, "Lettuce");
					}
				}
			};
		}

	}

	/**
	 * Replaces the {@link LettuceConnectionFactory} Spring Boot created for a cluster by a
	 * {@link SlotwiseLettuceConnectionFactory} with the same configuration, before it starts. Factories the
	 * application declared itself are left alone.
	 */
	static final class SlotwiseLettuceConnectionFactoryPostProcessor
			extends SpringBootConnectionFactoryReplacer<LettuceConnectionFactory> {

		SlotwiseLettuceConnectionFactoryPostProcessor() {
			super(LettuceConnectionFactory.class);
		}

		@Override
		protected Object replace(LettuceConnectionFactory original, ConfigurableListableBeanFactory beanFactory) {
			RedisClusterConfiguration cluster = original.getClusterConfiguration();
			if (cluster == null) {
				return original;
			}
			SlotwiseLettuceConnectionFactory replacement = new SlotwiseLettuceConnectionFactory(cluster,
					original.getClientConfiguration());
			replacement.setPhase(original.getPhase());
			replacement.setAutoStartup(original.isAutoStartup());
			replacement.setEarlyStartup(original.isEarlyStartup());
			replacement.setShareNativeConnection(original.getShareNativeConnection());
			replacement.setValidateConnection(original.getValidateConnection());
			replacement.setEagerInitialization(original.getEagerInitialization());
			replacement.setConvertPipelineAndTxResults(original.getConvertPipelineAndTxResults());
			springBootExecutor().ifPresent(replacement::setExecutor);
			beanFactory.getBeanProvider(SlotwiseLettuceConnectionFactoryCustomizer.class)
				.orderedStream()
				.forEach((customizer) -> customizer.customize(replacement));
			return replacement;
		}

	}

}
