package dev.slotwise.autoconfigure;

import dev.slotwise.internal.cluster.JedisClusterFeature;
import dev.slotwise.internal.cluster.KeyspaceFeature;
import dev.slotwise.internal.cluster.LettuceClusterFeature;
import dev.slotwise.internal.keyspace.ScanObserver;
import dev.slotwise.internal.keyspace.ScanSettings;
import io.lettuce.core.RedisClient;
import redis.clients.jedis.Jedis;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Cluster-wide {@code scan}, {@code keys} and cache clearing on every master, a feature
 * of Slotwise's cluster connections on Jedis and Lettuce.
 * {@code slotwise.keyspace.enabled=false} leaves Spring Data Redis's in place and every
 * other feature as it is.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "slotwise.keyspace.enabled", matchIfMissing = true)
class SlotwiseKeyspaceConfiguration {

	private static ScanSettings scanSettings(SlotwiseProperties properties) {
		SlotwiseProperties.Keyspace keyspace = properties.getKeyspace();
		return new ScanSettings(keyspace.getConcurrency(), keyspace.getReadAhead(), keyspace.getFailoverTimeout(),
				keyspace.getTimeout());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Jedis.class, JedisConnectionFactory.class })
	static class JedisKeyspaceConfiguration {

		@Bean
		@Order(SlotwiseOrder.KEYSPACE_FEATURE)
		JedisClusterFeature slotwiseJedisKeyspaceFeature(SlotwiseProperties properties,
				ObjectProvider<ScanObserver.Source> observers) {
			return KeyspaceFeature.jedis(scanSettings(properties),
					() -> FeatureObservers.scan(observers, SlotwiseJedisConfiguration.CLIENT));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ RedisClient.class, LettuceConnectionFactory.class })
	static class LettuceKeyspaceConfiguration {

		@Bean
		@Order(SlotwiseOrder.KEYSPACE_FEATURE)
		LettuceClusterFeature slotwiseLettuceKeyspaceFeature(SlotwiseProperties properties,
				ObjectProvider<ScanObserver.Source> observers) {
			return KeyspaceFeature.lettuce(scanSettings(properties),
					() -> FeatureObservers.scan(observers, SlotwiseLettuceConfiguration.CLIENT));
		}

	}

}
