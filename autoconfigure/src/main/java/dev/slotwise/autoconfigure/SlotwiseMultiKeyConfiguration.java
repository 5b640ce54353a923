package dev.slotwise.autoconfigure;

import java.util.Locale;

import dev.slotwise.internal.cluster.JedisClusterFeature;
import dev.slotwise.internal.cluster.LettuceClusterFeature;
import dev.slotwise.internal.cluster.LettuceClusterRuntime;
import dev.slotwise.internal.cluster.LettuceConnectionView;
import dev.slotwise.internal.cluster.MultiKeyFeature;
import dev.slotwise.internal.cluster.StartedFeature;
import dev.slotwise.internal.multikey.MultiKeyObserver;
import dev.slotwise.multikey.MultiKeyReadFrom;
import io.lettuce.core.RedisClient;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
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
 * Slot-aware parallel multi-key commands, a feature of Slotwise's cluster connections on
 * Jedis and on Lettuce (imperative and reactive). {@code slotwise.multikey.enabled=false}
 * leaves Spring Data Redis's multi-key commands in place and every other feature as it
 * is.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "slotwise.multikey.enabled", matchIfMissing = true)
class SlotwiseMultiKeyConfiguration {

	private static final Log logger = LogFactory.getLog(SlotwiseMultiKeyConfiguration.class);

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Jedis.class, JedisConnectionFactory.class })
	static class JedisMultiKeyConfiguration {

		@Bean
		@Order(SlotwiseOrder.MULTIKEY_FEATURE)
		JedisClusterFeature slotwiseJedisMultiKeyFeature(ObjectProvider<MultiKeyObserver.Source> observers) {
			return MultiKeyFeature.jedis(() -> FeatureObservers.multiKey(observers, SlotwiseJedisConfiguration.CLIENT));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ RedisClient.class, LettuceConnectionFactory.class })
	static class LettuceMultiKeyConfiguration {

		@Bean
		@Order(SlotwiseOrder.MULTIKEY_FEATURE)
		LettuceClusterFeature slotwiseLettuceMultiKeyFeature(SlotwiseProperties properties,
				ObjectProvider<MultiKeyObserver.Source> observers) {
			LettuceClusterFeature feature = MultiKeyFeature
				.lettuce(() -> FeatureObservers.multiKey(observers, SlotwiseLettuceConfiguration.CLIENT));
			MultiKeyReadFrom readFrom = properties.getMultikey().getReadFrom();
			if (readFrom == MultiKeyReadFrom.MASTER) {
				return feature;
			}
			return new LettuceClusterFeature() {

				@Override
				public String name() {
					return feature.name();
				}

				@Override
				public StartedFeature<LettuceConnectionView> start(LettuceClusterRuntime runtime) {
					// Only a Lettuce factory in use reaches here. Ignored rather than
					// fatal: one configuration may serve Jedis and Lettuce deployments,
					// and over Lettuce the engine's reads already follow the
					// application's own ReadFrom.
					logger.warn("slotwise.multikey.read-from="
							+ readFrom.name().toLowerCase(Locale.ROOT).replace('_', '-')
							+ " is ignored: it applies to Jedis only. Over Lettuce the multi-key engine's reads follow "
							+ "spring.data.redis.lettuce.read-from, as Lettuce's own reads do");
					return feature.start(runtime);
				}

			};
		}

	}

}
