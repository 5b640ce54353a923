package dev.slotwise.autoconfigure;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.internal.keyspace.ClusterCacheClear;
import dev.slotwise.internal.nearcache.NearCacheWriter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.cache.autoconfigure.CacheProperties;
import org.springframework.boot.cache.autoconfigure.RedisCacheManagerBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.cache.Cache;
import org.springframework.cache.transaction.TransactionAwareCacheDecorator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.Ordered;
import org.springframework.data.redis.cache.RedisCache;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.cache.RedisCacheManager.RedisCacheManagerBuilder;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Redis caches on a cluster clear through Slotwise's cluster-wide {@code SCAN}, which
 * unlinks every key on the master where it was found: a
 * {@link RedisCacheManagerBuilderCustomizer} sets the cache writer Spring Boot would
 * build (non-locking) with Slotwise's {@link ClusterCacheClear} batch strategy, in place
 * of Spring Data Redis's default {@code KEYS} strategy. It runs first among the
 * customizers, so a writer the application sets in its own customizer replaces it; an
 * application's own {@code CacheManager} is left alone. One INFO line per application
 * says which is used.
 * <p>
 * Off with {@code slotwise.enabled=false} or {@code slotwise.keyspace.enabled=false}, and
 * on a standalone Redis or a connection factory that is not Slotwise's: Spring Boot's
 * default writer then stays.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, SlotwiseAutoConfiguration.class })
@ConditionalOnClass({ RedisCacheManagerBuilderCustomizer.class, RedisCacheManager.class })
@ConditionalOnBooleanProperty(name = "slotwise.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "slotwise.keyspace.enabled", matchIfMissing = true)
@Conditional(OnSupportedLibrariesCondition.class)
public final class SlotwiseCacheAutoConfiguration {

	/** The {@code COUNT} hint of each node's {@code SCAN} in a cache clear. */
	static final int CACHE_CLEAR_COUNT = 1000;

	@Bean
	ClusterCacheWriterCustomizer slotwiseClusterCacheWriterCustomizer(
			ObjectProvider<RedisConnectionFactory> connectionFactory, ObjectProvider<RedisCacheManager> cacheManager) {
		return new ClusterCacheWriterCustomizer(connectionFactory, cacheManager);
	}

	@Bean
	CacheWriterReport slotwiseCacheWriterReport(ClusterCacheWriterCustomizer customizer,
			ObjectProvider<CacheProperties> cacheProperties) {
		return new CacheWriterReport(customizer, cacheProperties);
	}

	/**
	 * Sets the cluster cache writer on Spring Boot's cache manager builder, and logs
	 * (once per application) which writer the caches use.
	 */
	static final class ClusterCacheWriterCustomizer
			implements RedisCacheManagerBuilderCustomizer, Ordered, SmartInitializingSingleton {

		private static final Log logger = LogFactory.getLog(SlotwiseCacheAutoConfiguration.class);

		private final ObjectProvider<RedisConnectionFactory> connectionFactory;

		private final ObjectProvider<RedisCacheManager> cacheManager;

		private final AtomicBoolean logged = new AtomicBoolean();

		private volatile @Nullable RedisCacheWriter writer;

		ClusterCacheWriterCustomizer(ObjectProvider<RedisConnectionFactory> connectionFactory,
				ObjectProvider<RedisCacheManager> cacheManager) {
			this.connectionFactory = connectionFactory;
			this.cacheManager = cacheManager;
		}

		@Override
		public void customize(RedisCacheManagerBuilder builder) {
			RedisConnectionFactory factory = this.connectionFactory.getIfUnique();
			if (factory == null || !isSlotwiseCluster(factory)) {
				log("Redis caches clear with Spring Boot's default cache writer (Spring Data Redis's KEYS strategy): "
						+ "the connection factory is not Slotwise's cluster factory");
				return;
			}
			RedisCacheWriter writer = RedisCacheWriter.nonLockingRedisCacheWriter(factory,
					new ClusterCacheClear(CACHE_CLEAR_COUNT));
			this.writer = writer;
			builder.cacheWriter(writer);
			// Logged by the report, which runs after the application's customizers.
		}

		@Override
		public void afterSingletonsInstantiated() {
			if (this.writer == null && !this.logged.get() && this.cacheManager.getIfUnique() != null) {
				log("Redis caches clear with the application's own RedisCacheManager: its cache writer and batch "
						+ "strategy are used as configured (Slotwise's cluster-wide cache clear is not applied)");
			}
		}

		/**
		 * Returns the writer this customizer set, for tests.
		 */
		@Nullable RedisCacheWriter writer() {
			return this.writer;
		}

		@Override
		public int getOrder() {
			// First: an application's customizer that sets a writer of its own runs later
			// and wins.
			return Ordered.HIGHEST_PRECEDENCE;
		}

		void log(String message) {
			if (this.logged.compareAndSet(false, true)) {
				logger.info(message);
			}
		}

		private static boolean isSlotwiseCluster(RedisConnectionFactory factory) {
			ClassLoader classLoader = factory.getClass().getClassLoader();
			if (ClassUtils.isPresent("redis.clients.jedis.Jedis", classLoader) && JedisFactories.isCluster(factory)) {
				return true;
			}
			return ClassUtils.isPresent("io.lettuce.core.RedisClient", classLoader)
					&& LettuceFactories.isCluster(factory);
		}

	}

	/**
	 * Runs last among the customizers and logs which writer the cache manager gets:
	 * Slotwise's, or one the application's customizers set after it. The builder has no
	 * getter for its writer, so a cache of a manager built from it, and never started,
	 * tells (no Redis command is sent).
	 */
	static final class CacheWriterReport implements RedisCacheManagerBuilderCustomizer, Ordered {

		private static final String PROBE = "slotwise-cache-writer-probe";

		private final ClusterCacheWriterCustomizer customizer;

		private final ObjectProvider<CacheProperties> cacheProperties;

		CacheWriterReport(ClusterCacheWriterCustomizer customizer, ObjectProvider<CacheProperties> cacheProperties) {
			this.customizer = customizer;
			this.cacheProperties = cacheProperties;
		}

		@Override
		public void customize(RedisCacheManagerBuilder builder) {
			RedisCacheWriter slotwise = this.customizer.writer();
			if (slotwise == null) {
				return;
			}
			CacheProperties properties = this.cacheProperties.getIfAvailable();
			// With statistics on, the manager wraps whichever writer it gets in a copy:
			// identity cannot tell.
			boolean statistics = properties != null && properties.getRedis().isEnableStatistics();
			Cache probe = statistics ? null : builder.build().getCache(PROBE);
			if (probe instanceof TransactionAwareCacheDecorator transactionAware) {
				probe = transactionAware.getTargetCache();
			}
			if (probe instanceof RedisCache cache && unwrap(cache.getNativeCache()) != slotwise) {
				this.customizer.log("Redis caches clear with the application's own cache writer, set by its "
						+ "RedisCacheManagerBuilderCustomizer: its batch strategy is used as configured (Slotwise's "
						+ "cluster-wide cache clear is not applied)");
			}
			else {
				this.customizer.log("Redis caches clear through Slotwise's batch strategy (a cluster-wide SCAN that "
						+ "unlinks each key on the master where it was found; no KEYS) on a non-locking cache writer, "
						+ "as Spring Boot would build it" + ((probe != null) ? ""
								: " (unless a RedisCacheManagerBuilderCustomizer of the application set its own)"));
			}
		}

		@Override
		public int getOrder() {
			return Ordered.LOWEST_PRECEDENCE;
		}

		/**
		 * The writer behind the near cache's, which keeps values in front of Slotwise's
		 * (or any) writer.
		 */
		private static RedisCacheWriter unwrap(RedisCacheWriter writer) {
			if (ClassUtils.isPresent("com.github.benmanes.caffeine.cache.Caffeine", writer.getClass().getClassLoader())
					&& NearCacheWriters.isNearCache(writer)) {
				return NearCacheWriters.delegate(writer);
			}
			return writer;
		}

	}

	/**
	 * Loaded only when Caffeine, which the near cache needs, is present.
	 */
	private static final class NearCacheWriters {

		static boolean isNearCache(RedisCacheWriter writer) {
			return writer instanceof NearCacheWriter;
		}

		static RedisCacheWriter delegate(RedisCacheWriter writer) {
			return ((NearCacheWriter) writer).delegate();
		}

	}

	/**
	 * Loaded only when Jedis is present.
	 */
	private static final class JedisFactories {

		static boolean isCluster(RedisConnectionFactory factory) {
			return factory instanceof SlotwiseJedisConnectionFactory jedis && jedis.isRedisClusterAware();
		}

	}

	/**
	 * Loaded only when Lettuce is present.
	 */
	private static final class LettuceFactories {

		static boolean isCluster(RedisConnectionFactory factory) {
			return factory instanceof SlotwiseLettuceConnectionFactory lettuce && lettuce.isClusterAware();
		}

	}

}
