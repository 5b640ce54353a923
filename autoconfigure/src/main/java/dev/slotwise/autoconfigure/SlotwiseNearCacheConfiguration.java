package dev.slotwise.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.util.List;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.slotwise.internal.cluster.JedisClusterFeature;
import dev.slotwise.internal.cluster.LettuceClusterFeature;
import dev.slotwise.internal.cluster.NearCacheFeature;
import dev.slotwise.internal.metrics.NearCacheMeters;
import dev.slotwise.internal.nearcache.NearCache;
import dev.slotwise.internal.nearcache.NearCacheObserver;
import dev.slotwise.internal.nearcache.NearCacheRuntime;
import dev.slotwise.internal.nearcache.NearCacheSettings;
import dev.slotwise.internal.nearcache.RemoteReadObserver;
import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.MeterRegistry;
import redis.clients.jedis.Jedis;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The near cache ({@code slotwise.near-cache.enabled}, off by default): the local tier
 * and its tracking, and the command layer of template reads on both clients. The Spring
 * caches' tier is set up with the cache writer, in
 * {@link SlotwiseCacheAutoConfiguration}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "slotwise.near-cache.enabled")
class SlotwiseNearCacheConfiguration {

	/**
	 * Fails start-up, naming what is missing, when the near cache is asked for without
	 * Caffeine.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass("com.github.benmanes.caffeine.cache.Caffeine")
	static class MissingCaffeineConfiguration {

		MissingCaffeineConfiguration() {
			throw new IllegalStateException("slotwise.near-cache.enabled=true needs Caffeine on the class path: add "
					+ "com.github.ben-manes.caffeine:caffeine (Spring Boot manages its version)");
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(Caffeine.class)
	static class NearCacheRuntimeConfiguration {

		@Bean
		NearCacheRuntime slotwiseNearCache(SlotwiseProperties properties, ObjectProvider<NearCacheObserver> observer) {
			SlotwiseProperties.NearCache nearCache = properties.getNearCache();
			List<byte[]> prefixes = nearCache.getKeyPrefixes()
				.stream()
				.map((prefix) -> prefix.getBytes(StandardCharsets.UTF_8))
				.toList();
			NearCacheSettings settings = new NearCacheSettings(nearCache.getMaxEntries(),
					nearCache.getMaxBytes().toBytes(), nearCache.getTimeToLive(), prefixes);
			NearCacheObserver seen = observer.getIfAvailable(() -> NearCacheObserver.NONE);
			NearCacheRuntime runtime = new NearCacheRuntime(new NearCache(settings, seen));
			seen.bind(runtime);
			return runtime;
		}

		static RemoteReadObserver remoteReads(ObjectProvider<RemoteReadObserver.Source> sources, String client) {
			RemoteReadObserver.Source source = sources.getIfAvailable();
			return (source != null) ? source.forClient(client) : RemoteReadObserver.NONE;
		}

		/**
		 * Near cache meters, when Micrometer is present and
		 * {@code slotwise.metrics.enabled} is not false.
		 */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(MeterRegistry.class)
		@ConditionalOnBooleanProperty(name = "slotwise.metrics.enabled", matchIfMissing = true)
		static class NearCacheMetersConfiguration {

			@Bean
			@ConditionalOnMissingBean(NearCacheObserver.class)
			NearCacheMeters slotwiseNearCacheMeters() {
				return new NearCacheMeters();
			}

		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass({ Jedis.class, JedisConnectionFactory.class })
		static class JedisNearCacheConfiguration {

			@Bean
			@Order(SlotwiseOrder.NEAR_CACHE_FEATURE)
			JedisClusterFeature slotwiseJedisNearCacheFeature(NearCacheRuntime nearCache,
					ObjectProvider<RemoteReadObserver.Source> observations) {
				return NearCacheFeature.jedis(nearCache,
						() -> remoteReads(observations, SlotwiseJedisConfiguration.CLIENT));
			}

		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass({ RedisClient.class, LettuceConnectionFactory.class })
		static class LettuceNearCacheConfiguration {

			@Bean
			@Order(SlotwiseOrder.NEAR_CACHE_FEATURE)
			LettuceClusterFeature slotwiseLettuceNearCacheFeature(NearCacheRuntime nearCache,
					ObjectProvider<RemoteReadObserver.Source> observations) {
				return NearCacheFeature.lettuce(nearCache,
						() -> remoteReads(observations, SlotwiseLettuceConfiguration.CLIENT));
			}

		}

	}

}
