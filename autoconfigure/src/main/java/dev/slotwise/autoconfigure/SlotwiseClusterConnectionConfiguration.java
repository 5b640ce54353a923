package dev.slotwise.autoconfigure;

import java.time.Duration;

import dev.slotwise.connection.SlotwiseJedisConnectionFactoryCustomizer;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactoryCustomizer;
import dev.slotwise.internal.cluster.JedisClusterConnections;
import dev.slotwise.internal.cluster.JedisClusterFeature;
import dev.slotwise.internal.cluster.LettuceClusterConnections;
import dev.slotwise.internal.cluster.LettuceClusterFeature;
import dev.slotwise.internal.multikey.jedis.MultiKeyExecutor;
import dev.slotwise.internal.multikey.MultiKeySettings;
import io.lettuce.core.RedisClient;
import redis.clients.jedis.Jedis;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.core.task.VirtualThreadTaskExecutor;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Slotwise's cluster connections, composed of the features the application left on: each
 * feature (multi-key commands, pipelining, key walks, pub/sub) is registered by its own
 * configuration with its own {@code slotwise.<feature>.enabled} switch; this one composes
 * whichever are there, and holds what they share (the limits of node batches and, over
 * Jedis, the executor of node batches).
 */
@Configuration(proxyBeanMethods = false)
class SlotwiseClusterConnectionConfiguration {

	static final String COMMAND_TIMEOUT = "spring.data.redis.timeout";

	@Bean
	@ConditionalOnMissingBean
	MultiKeySettings slotwiseMultiKeySettings(SlotwiseProperties properties, Environment environment) {
		SlotwiseProperties.MultiKey multiKey = properties.getMultikey();
		Duration timeout = multiKey.getTimeout();
		// A dead node must fail a call no later than the application's own command
		// timeout would: the engine's batches do not run under the client's per-command
		// timeout, so it takes the shorter of the two.
		Duration commandTimeout = Binder.get(environment).bind(COMMAND_TIMEOUT, Duration.class).orElse(null);
		if (commandTimeout != null && !commandTimeout.isNegative() && !commandTimeout.isZero()
				&& commandTimeout.compareTo(timeout) < 0) {
			timeout = commandTimeout;
		}
		return new MultiKeySettings(multiKey.getMaxKeysPerCommand(), multiKey.getMaxCommandsPerPipeline(), timeout,
				multiKey.getMaxRedirects());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Jedis.class, JedisConnectionFactory.class })
	static class JedisClusterConnectionConfiguration {

		/**
		 * The executor of the Jedis features' node batches. Lazy: created when a feature
		 * of a started Slotwise Jedis cluster factory first needs it, so that an
		 * application on Lettuce, or on Jedis without a cluster, gets neither the
		 * executor nor its threads. On virtual threads when the application enabled them,
		 * as Spring Boot's own Redis cluster executor is.
		 */
		@Bean(destroyMethod = "close")
		@Lazy
		@ConditionalOnMissingBean
		MultiKeyExecutor slotwiseMultiKeyExecutor(SlotwiseProperties properties, Environment environment,
				ObjectProvider<MultiKeyExecutorListener> listeners) {
			SlotwiseProperties.JedisExecutor executor = properties.getMultikey().getJedisExecutor();
			MultiKeyExecutor created = Threading.VIRTUAL.isActive(environment)
					? MultiKeyExecutor.create(executor.getThreads(), executor.getQueueCapacity(),
							new VirtualThreadTaskExecutor(executor.getThreadNamePrefix()).getVirtualThreadFactory(),
							executor.getAwaitTermination())
					: MultiKeyExecutor.create(executor.getThreads(), executor.getQueueCapacity(),
							executor.getThreadNamePrefix(), executor.getAwaitTermination());
			created.setInlineBatchBytes(executor.getInlineBatchSize().toBytes());
			listeners.orderedStream().forEach((listener) -> listener.executorCreated(created));
			return created;
		}

		@Bean
		@Order(SlotwiseOrder.CLUSTER_CONNECTIONS)
		SlotwiseJedisConnectionFactoryCustomizer slotwiseJedisClusterConnections(SlotwiseProperties properties,
				MultiKeySettings settings, ObjectProvider<JedisClusterFeature> features,
				ObjectProvider<MultiKeyExecutor> executor) {
			return (factory) -> new JedisClusterConnections(features.orderedStream().toList(), settings,
					properties.getMultikey().getReadFrom(), executor::getObject)
				.customize(factory);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ RedisClient.class, LettuceConnectionFactory.class })
	static class LettuceClusterConnectionConfiguration {

		@Bean
		@Order(SlotwiseOrder.CLUSTER_CONNECTIONS)
		SlotwiseLettuceConnectionFactoryCustomizer slotwiseLettuceClusterConnections(SlotwiseProperties properties,
				MultiKeySettings settings, ObjectProvider<LettuceClusterFeature> features) {
			return (factory) -> new LettuceClusterConnections(features.orderedStream().toList(), settings,
					properties.getTopology().getMinRefreshInterval())
				.customize(factory);
		}

	}

}
