package dev.slotwise.autoconfigure;

import java.time.Duration;

import dev.slotwise.connection.SlotwiseJedisConnectionFactoryCustomizer;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactoryCustomizer;
import dev.slotwise.multikey.JedisMultiKeySupport;
import dev.slotwise.multikey.LettuceMultiKeySupport;
import dev.slotwise.metrics.MultiKeyExecutorMeters;
import dev.slotwise.metrics.MultiKeyMeters;
import dev.slotwise.multikey.MultiKeyExecutor;
import dev.slotwise.multikey.MultiKeyObserver;
import dev.slotwise.multikey.MultiKeySettings;
import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.MeterRegistry;
import redis.clients.jedis.Jedis;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Slot-aware parallel multi-key commands for Slotwise's cluster connection factories, on Jedis (with its bounded
 * executor) and on Lettuce. {@code slotwise.multikey.enabled=false} leaves Spring Data Redis's multi-key commands in
 * place.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "slotwise.multikey.enabled", matchIfMissing = true)
class SlotwiseMultiKeyConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MultiKeySettings slotwiseMultiKeySettings(SlotwiseProperties properties) {
		SlotwiseProperties.MultiKey multiKey = properties.getMultikey();
		PropertyChecks.requireAtLeast("slotwise.multikey.max-keys-per-command", multiKey.getMaxKeysPerCommand(), 1);
		PropertyChecks.requireAtLeast("slotwise.multikey.max-commands-per-pipeline",
				multiKey.getMaxCommandsPerPipeline(), 1);
		PropertyChecks.requireAtLeast("slotwise.multikey.max-redirects", multiKey.getMaxRedirects(), 0);
		Duration timeout = multiKey.getTimeout();
		PropertyChecks.requirePositive("slotwise.multikey.timeout", timeout);
		return new MultiKeySettings(multiKey.getMaxKeysPerCommand(), multiKey.getMaxCommandsPerPipeline(), timeout,
				multiKey.getMaxRedirects());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Jedis.class, JedisConnectionFactory.class })
	static class JedisMultiKeyConfiguration {

		@Bean(destroyMethod = "close")
		@ConditionalOnMissingBean
		MultiKeyExecutor slotwiseMultiKeyExecutor(SlotwiseProperties properties) {
			SlotwiseProperties.Executor executor = properties.getExecutor();
			Integer configured = executor.getThreads();
			int threads = (configured != null) ? configured : Runtime.getRuntime().availableProcessors() * 4;
			PropertyChecks.requireAtLeast("slotwise.executor.threads", threads, 1);
			PropertyChecks.requireAtLeast("slotwise.executor.queue-capacity", executor.getQueueCapacity(), 1);
			Duration awaitTermination = executor.getAwaitTermination();
			PropertyChecks.requireNotNegative("slotwise.executor.await-termination", awaitTermination);
			return MultiKeyExecutor.create(threads, executor.getQueueCapacity(), executor.getThreadNamePrefix(),
					awaitTermination);
		}

		@Bean
		@Order(100)
		SlotwiseJedisConnectionFactoryCustomizer slotwiseJedisMultiKeyCustomizer(MultiKeySettings settings,
				MultiKeyExecutor executor, ObjectProvider<MultiKeyObservers> observers) {
			return (factory) -> JedisMultiKeySupport
				.customizer(settings, executor, observer(observers, SlotwiseJedisConfiguration.CLIENT))
				.customize(factory);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ RedisClient.class, LettuceConnectionFactory.class })
	static class LettuceMultiKeyConfiguration {

		@Bean
		@Order(100)
		SlotwiseLettuceConnectionFactoryCustomizer slotwiseLettuceMultiKeyCustomizer(MultiKeySettings settings,
				ObjectProvider<MultiKeyObservers> observers) {
			return (factory) -> LettuceMultiKeySupport
				.customizer(settings, observer(observers, SlotwiseLettuceConfiguration.CLIENT))
				.customize(factory);
		}

	}

	private static MultiKeyObserver observer(ObjectProvider<MultiKeyObservers> observers, String client) {
		MultiKeyObservers available = observers.getIfAvailable();
		return (available != null) ? available.forClient(client) : MultiKeyObserver.NONE;
	}

	/**
	 * Multi-key and executor meters, when Micrometer is present and {@code slotwise.metrics.enabled} is not false.
	 * The registry is looked up when a connection factory is customized (and, for the executor, once every singleton
	 * exists) rather than with {@code @ConditionalOnBean}, which would depend on Slotwise's auto-configuration running
	 * after the registry's.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBooleanProperty(name = "slotwise.metrics.enabled", matchIfMissing = true)
	static class MultiKeyMetersConfiguration {

		@Bean
		MultiKeyObservers slotwiseMultiKeyObservers(ObjectProvider<MeterRegistry> registry) {
			return (client) -> {
				MeterRegistry available = registry.getIfUnique();
				return (available != null) ? new MultiKeyMeters(available, client) : MultiKeyObserver.NONE;
			};
		}

		@Bean
		static SmartInitializingSingleton slotwiseMultiKeyExecutorMeters(ObjectProvider<MultiKeyExecutor> executor,
				ObjectProvider<MeterRegistry> registry) {
			return () -> executor.ifUnique((available) -> registry
				.ifUnique((meterRegistry) -> new MultiKeyExecutorMeters(available).bindTo(meterRegistry)));
		}

	}

	/**
	 * The observer for each client's multi-key engine; a bean only when meters are on.
	 */
	@FunctionalInterface
	interface MultiKeyObservers {

		MultiKeyObserver forClient(String client);

	}

}
