package dev.slotwise.autoconfigure;

import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactoryCustomizer;
import io.lettuce.core.RedisClient;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Slotwise for Lettuce: Spring Boot's {@link LettuceConnectionFactory} replaced by a
 * {@link SlotwiseLettuceConnectionFactory} in cluster mode. The pool lives in
 * {@link SlotwisePoolConfiguration}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ RedisClient.class, LettuceConnectionFactory.class })
class SlotwiseLettuceConfiguration {

	static final String CLIENT = SlotwisePoolConfiguration.LETTUCE;

	@Bean
	static SlotwiseLettuceConnectionFactoryPostProcessor slotwiseLettuceConnectionFactoryPostProcessor() {
		return new SlotwiseLettuceConnectionFactoryPostProcessor();
	}

	/**
	 * Replaces the {@link LettuceConnectionFactory} Spring Boot created for a cluster by
	 * a {@link SlotwiseLettuceConnectionFactory} with the same configuration, before it
	 * starts. Factories the application declared itself are left alone.
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
