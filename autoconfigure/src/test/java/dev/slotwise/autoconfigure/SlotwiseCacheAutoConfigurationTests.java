package dev.slotwise.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.cache.autoconfigure.RedisCacheManagerBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.cache.BatchStrategies;
import org.springframework.data.redis.cache.RedisCache;
import org.springframework.data.redis.cache.RedisCacheConfiguration;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which cache writer Spring Boot's Redis cache manager gets with Slotwise: Slotwise's
 * cluster cache clear on a cluster by default, the application's own writer or cache
 * manager when it has one, Spring Boot's default with Slotwise off or without a cluster.
 * No Redis is contacted (nothing is read or written; the factories point at a closed
 * port).
 */
@ExtendWith(OutputCaptureExtension.class)
class SlotwiseCacheAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class,
				CacheAutoConfiguration.class, SlotwiseCacheAutoConfiguration.class))
		.withUserConfiguration(Caching.class)
		.withPropertyValues("spring.cache.type=redis", "spring.cache.cache-names=things",
				"slotwise.pool.prewarm=false");

	/**
	 * Over Lettuce, which connects on first use (Jedis reads the slots at start-up: its
	 * cluster cases run in {@code CacheClearIntegrationTests}).
	 */
	private final ApplicationContextRunner clusterRunner = this.runner
		.withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:1", "spring.data.redis.client-type=lettuce");

	@Test
	void slotwiseCacheClearIsTheWriterOnACluster(CapturedOutput output) {
		this.clusterRunner.run((context) -> assertSlotwiseWriter(context.getBean(RedisCacheManager.class),
				context.getBean(SlotwiseCacheAutoConfiguration.ClusterCacheWriterCustomizer.class)));
		assertThat(output).containsOnlyOnce("Redis caches clear through Slotwise's batch strategy")
			.doesNotContain("unless a RedisCacheManagerBuilderCustomizer");
	}

	@Test
	void theApplicationsOwnWriterIsRespected(CapturedOutput output) {
		this.clusterRunner.withUserConfiguration(OwnWriter.class).run((context) -> {
			RedisCacheWriter own = context.getBean(OwnWriter.class).writer;
			assertThat(own).isNotNull();
			assertThat(writerOf(context.getBean(RedisCacheManager.class))).isSameAs(own);
		});
		assertThat(output).containsOnlyOnce("Redis caches clear with the application's own cache writer")
			.doesNotContain("Redis caches clear through Slotwise's batch strategy");
	}

	@Test
	void withStatisticsTheLogSaysWhatItCannotTell(CapturedOutput output) {
		this.clusterRunner.withPropertyValues("spring.cache.redis.enable-statistics=true")
			.run((context) -> assertThat(
					context.getBean(SlotwiseCacheAutoConfiguration.ClusterCacheWriterCustomizer.class).writer())
				.isNotNull());
		assertThat(output).containsOnlyOnce("Redis caches clear through Slotwise's batch strategy")
			.contains("unless a RedisCacheManagerBuilderCustomizer of the application set its own");
	}

	@Test
	void theApplicationsOwnCacheManagerIsRespected(CapturedOutput output) {
		this.clusterRunner.withUserConfiguration(OwnCacheManager.class).run((context) -> {
			RedisCacheManager manager = context.getBean(RedisCacheManager.class);
			assertThat(manager).isSameAs(context.getBean(OwnCacheManager.class).manager);
			assertThat(context.getBean(SlotwiseCacheAutoConfiguration.ClusterCacheWriterCustomizer.class).writer())
				.isNull();
		});
		assertThat(output).containsOnlyOnce("Redis caches clear with the application's own RedisCacheManager");
	}

	@Test
	void slotwiseDisabledLeavesSpringBootsDefault() {
		this.clusterRunner.withPropertyValues("slotwise.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(SlotwiseCacheAutoConfiguration.ClusterCacheWriterCustomizer.class);
			assertThat(context).hasSingleBean(RedisCacheManager.class);
		});
	}

	@Test
	void keyspaceDisabledLeavesSpringBootsDefault() {
		this.clusterRunner.withPropertyValues("slotwise.keyspace.enabled=false")
			.run((context) -> assertThat(context)
				.doesNotHaveBean(SlotwiseCacheAutoConfiguration.ClusterCacheWriterCustomizer.class));
	}

	@Test
	void withoutAClusterSpringBootsDefaultStays(CapturedOutput output) {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(SlotwiseCacheAutoConfiguration.ClusterCacheWriterCustomizer.class);
			assertThat(context.getBean(SlotwiseCacheAutoConfiguration.ClusterCacheWriterCustomizer.class).writer())
				.isNull();
		});
		assertThat(output).containsOnlyOnce("Redis caches clear with Spring Boot's default cache writer");
	}

	@Test
	void backsOffWithoutSpringBootsCacheModule() {
		this.clusterRunner.withClassLoader(new FilteredClassLoader(RedisCacheManagerBuilderCustomizer.class))
			.run((context) -> assertThat(context)
				.doesNotHaveBean(SlotwiseCacheAutoConfiguration.ClusterCacheWriterCustomizer.class));
	}

	private static void assertSlotwiseWriter(RedisCacheManager manager,
			SlotwiseCacheAutoConfiguration.ClusterCacheWriterCustomizer customizer) {
		assertThat(customizer.writer()).isNotNull();
		assertThat(writerOf(manager)).isSameAs(customizer.writer());
	}

	/**
	 * The writer of the cache Spring Boot created from {@code spring.cache.cache-names}.
	 */
	private static RedisCacheWriter writerOf(RedisCacheManager manager) {
		return ((RedisCache) manager.getCache("things")).getNativeCache();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableCaching
	static class Caching {

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnWriter {

		RedisCacheWriter writer;

		@Bean
		RedisCacheManagerBuilderCustomizer ownWriter(RedisConnectionFactory factory) {
			return (builder) -> {
				this.writer = RedisCacheWriter.lockingRedisCacheWriter(factory, BatchStrategies.scan(500));
				builder.cacheWriter(this.writer);
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnCacheManager {

		RedisCacheManager manager;

		@Bean
		RedisCacheManager cacheManager(RedisConnectionFactory factory) {
			this.manager = RedisCacheManager.builder(RedisCacheWriter.nonLockingRedisCacheWriter(factory))
				.cacheDefaults(RedisCacheConfiguration.defaultCacheConfig())
				.build();
			return this.manager;
		}

	}

}
