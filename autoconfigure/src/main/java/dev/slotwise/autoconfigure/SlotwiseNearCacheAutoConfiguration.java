package dev.slotwise.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.slotwise.autoconfigure.SlotwiseCacheAutoConfiguration.ClusterCacheWriterCustomizer;
import dev.slotwise.internal.nearcache.NearCacheRuntime;
import dev.slotwise.internal.nearcache.NearCacheWriter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.cache.autoconfigure.RedisCacheManagerBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.data.redis.cache.RedisCacheConfiguration;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.cache.RedisCacheManager.RedisCacheManagerBuilder;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The near cache in front of Spring Boot's Redis caches
 * ({@code slotwise.near-cache.enabled}): the cache writer the cache manager would get
 * (Slotwise's cluster cache clear, or Spring Boot's default) is wrapped in a
 * {@link NearCacheWriter} for the caches of {@code slotwise.near-cache.cache-names}
 * (empty: every cache the manager knows once all customizers ran), and their key prefixes
 * are tracked on every node. A writer the application sets in its own customizer wins, as
 * with the cache clear.
 */
@AutoConfiguration(after = SlotwiseCacheAutoConfiguration.class)
@ConditionalOnClass({ RedisCacheManagerBuilderCustomizer.class, RedisCacheManager.class, Caffeine.class })
@ConditionalOnBooleanProperty(name = "slotwise.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "slotwise.near-cache.enabled")
@ConditionalOnBean(NearCacheRuntime.class)
public final class SlotwiseNearCacheAutoConfiguration {

	@Bean
	NearCacheWriterCustomizer slotwiseNearCacheWriterCustomizer(NearCacheRuntime nearCache,
			SlotwiseProperties properties, ObjectProvider<RedisConnectionFactory> connectionFactory,
			ObjectProvider<ClusterCacheWriterCustomizer> clusterWriter) {
		return new NearCacheWriterCustomizer(nearCache, properties.getNearCache().getCacheNames(), connectionFactory,
				clusterWriter);
	}

	@Bean
	NearCacheNamesCustomizer slotwiseNearCacheNamesCustomizer(NearCacheWriterCustomizer writer) {
		return new NearCacheNamesCustomizer(writer);
	}

	/**
	 * Wraps the writer right after Slotwise's cluster cache clear set its own (or,
	 * without it, Spring Boot's default).
	 */
	static final class NearCacheWriterCustomizer implements RedisCacheManagerBuilderCustomizer, Ordered {

		private static final Log logger = LogFactory.getLog(SlotwiseNearCacheAutoConfiguration.class);

		private final NearCacheRuntime nearCache;

		private final List<String> configuredNames;

		private final ObjectProvider<RedisConnectionFactory> connectionFactory;

		private final ObjectProvider<ClusterCacheWriterCustomizer> clusterWriter;

		/** The caches served and their key prefixes, filled once every customizer ran. */
		private volatile Map<String, byte[]> prefixes = Map.of();

		NearCacheWriterCustomizer(NearCacheRuntime nearCache, List<String> configuredNames,
				ObjectProvider<RedisConnectionFactory> connectionFactory,
				ObjectProvider<ClusterCacheWriterCustomizer> clusterWriter) {
			this.nearCache = nearCache;
			this.configuredNames = List.copyOf(configuredNames);
			this.connectionFactory = connectionFactory;
			this.clusterWriter = clusterWriter;
		}

		@Override
		public void customize(RedisCacheManagerBuilder builder) {
			ClusterCacheWriterCustomizer cluster = this.clusterWriter.getIfAvailable();
			RedisCacheWriter writer = (cluster != null) ? cluster.writer() : null;
			if (writer == null) {
				RedisConnectionFactory factory = this.connectionFactory.getIfUnique();
				if (factory == null) {
					return;
				}
				writer = RedisCacheWriter.nonLockingRedisCacheWriter(factory);
			}
			// The names are chosen later (select), when every customizer ran: the writer
			// reads them at each call.
			builder.cacheWriter(
					new NearCacheWriter(writer, this.nearCache.cache(), (name) -> this.prefixes.containsKey(name),
							(name) -> this.prefixes.getOrDefault(name, new byte[0])));
		}

		/** Fills the caches served from the builder once every customizer ran. */
		void select(RedisCacheManagerBuilder builder) {
			Set<String> names = this.configuredNames.isEmpty() ? builder.getConfiguredCaches()
					: Set.copyOf(this.configuredNames);
			Map<String, byte[]> prefixes = new LinkedHashMap<>();
			List<String> unprefixed = new ArrayList<>();
			for (String name : names) {
				RedisCacheConfiguration configuration = builder.getCacheConfigurationFor(name)
					.orElseGet(builder::cacheDefaults);
				if (!configuration.usePrefix() || configuration.getKeyPrefixFor(name).isEmpty()) {
					// Tracking needs a prefix: without one a cache's keys cannot be told
					// from any other key.
					unprefixed.add(name);
					continue;
				}
				prefixes.put(name, configuration.getKeyPrefixFor(name).getBytes(StandardCharsets.UTF_8));
			}
			this.prefixes = Map.copyOf(prefixes);
			if (!unprefixed.isEmpty()) {
				logger.warn("Slotwise near cache leaves out the Redis caches " + unprefixed
						+ ": their keys have no prefix to track");
			}
			if (prefixes.isEmpty()) {
				logger.info("Slotwise near cache serves no Spring cache: set spring.cache.cache-names or "
						+ "slotwise.near-cache.cache-names");
				return;
			}
			logger.info("Slotwise near cache serves the Redis caches " + prefixes.keySet());
			this.nearCache.cache().trackPrefixes(List.copyOf(prefixes.values()));
		}

		@Override
		public int getOrder() {
			// Right after Slotwise's cluster cache clear, before the application's
			// customizers.
			return Ordered.HIGHEST_PRECEDENCE + 1;
		}

	}

	/**
	 * Chooses the caches served once every other customizer ran (it sees the caches the
	 * application configured).
	 */
	static final class NearCacheNamesCustomizer implements RedisCacheManagerBuilderCustomizer, Ordered {

		private final NearCacheWriterCustomizer writer;

		NearCacheNamesCustomizer(NearCacheWriterCustomizer writer) {
			this.writer = writer;
		}

		@Override
		public void customize(RedisCacheManagerBuilder builder) {
			this.writer.select(builder);
		}

		@Override
		public int getOrder() {
			return Ordered.LOWEST_PRECEDENCE - 1;
		}

	}

}
