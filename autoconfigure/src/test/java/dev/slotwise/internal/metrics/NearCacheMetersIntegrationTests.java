package dev.slotwise.internal.metrics;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.autoconfigure.SlotwiseCacheAutoConfiguration;
import dev.slotwise.autoconfigure.SlotwiseNearCacheAutoConfiguration;
import dev.slotwise.internal.nearcache.NearCacheRuntime;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ClientKillParams;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The near cache's meters on a real cluster, both clients: a read answered from memory
 * counts as a hit and sends nothing (the servers' {@code INFO commandstats} see exactly
 * the misses), a write by another client counts as an invalidation, a killed invalidation
 * connection as a {@code link-lost} flush of the entries it dropped; the gauges show the
 * entries, the bytes, the entries of each master and the links.
 */
@WithRedisCluster
class NearCacheMetersIntegrationTests {

	private static final String PREFIX = "meters:";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class,
				MetricsAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		.withPropertyValues("spring.data.redis.timeout=5s", "slotwise.near-cache.enabled=true",
				"slotwise.near-cache.key-prefixes=" + PREFIX);

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void hitsMissesInvalidationsFlushesAndGaugesFollowRealReads(String client, RedisTestCluster cluster) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty())
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				NearCacheRuntime nearCache = context.getBean(NearCacheRuntime.class);
				NearCacheMeters meters = context.getBean(NearCacheMeters.class);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				String key = PREFIX + "a";
				byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
				template.opsForValue().set(key, "1");
				awaitTracking(nearCache, cluster, registry);
				// Misses until the value is kept (a read between the master's and the
				// replica's invalidation of the write is answered but not kept), then
				// hits only: the servers see exactly the misses.
				cluster.resetStats();
				double hits = reads(registry, "hit");
				double misses = reads(registry, "miss");
				do {
					assertThat(template.opsForValue().get(key)).isEqualTo("1");
				}
				while (nearCache.cache().peek(keyBytes) == null);
				for (int i = 0; i < 10; i++) {
					assertThat(template.opsForValue().get(key)).isEqualTo("1");
				}
				assertThat(reads(registry, "hit") - hits).isEqualTo(10);
				assertThat(reads(registry, "miss") - misses).isPositive().isEqualTo(cluster.totalCommandCalls("get"));
				// A multiGet counts each key: one hit, one miss.
				template.opsForValue().set(PREFIX + "b", "2");
				await(() -> nearCache.cache().peek((PREFIX + "b").getBytes(StandardCharsets.UTF_8)) == null);
				hits = reads(registry, "hit");
				misses = reads(registry, "miss");
				assertThat(template.opsForValue().multiGet(List.of(key, PREFIX + "b"))).containsExactly("1", "2");
				assertThat(reads(registry, "hit") - hits).isEqualTo(1);
				assertThat(reads(registry, "miss") - misses).isEqualTo(1);
				// The gauges: what the cache holds, per master once counted.
				assertThat(registry.get(NearCacheMeters.ENTRIES).gauge().value()).isPositive();
				assertThat(registry.get(NearCacheMeters.SIZE).gauge().value()).isPositive();
				assertThat(registry.get(NearCacheMeters.LINKS).tag("state", "ready").gauge().value())
					.isEqualTo(cluster.nodes().size());
				assertThat(registry.get(NearCacheMeters.LINKS).tag("state", "down").gauge().value()).isZero();
				meters.refresh();
				RedisNode master = cluster.masterServing(key);
				assertThat(registry.get(NearCacheMeters.MASTER_ENTRIES).gauges()).hasSize(cluster.masters().size());
				assertThat(registry.get(NearCacheMeters.MASTER_ENTRIES).tag("master", master.address()).gauge().value())
					.isGreaterThanOrEqualTo(1);
				// A write by another client: its master's invalidation (and its
				// replica's) arrives and is counted.
				double messages = counter(registry, NearCacheMeters.INVALIDATIONS);
				double keys = counter(registry, NearCacheMeters.INVALIDATED_KEYS);
				cluster.withAdmin(master, (Jedis jedis) -> jedis.set(key, "2"));
				// The entry goes first, then the message is counted.
				await(() -> counter(registry, NearCacheMeters.INVALIDATIONS) - messages >= 1);
				assertThat(nearCache.cache().peek(keyBytes)).isNull();
				assertThat(counter(registry, NearCacheMeters.INVALIDATED_KEYS) - keys).isGreaterThanOrEqualTo(1);
				// BCAST keeps no per-key memory on the servers: their tracking table
				// stays empty, whatever is read.
				for (RedisNode node : cluster.nodes()) {
					String stats = cluster.withAdmin(node, (Jedis jedis) -> jedis.info("stats"));
					assertThat(stats).as("INFO stats of %s", node)
						.contains("tracking_total_keys:0")
						.containsPattern("tracking_total_prefixes:[1-9]");
				}
				// A killed invalidation connection: its shard is flushed (cause
				// link-lost) with the entries it held.
				do {
					assertThat(template.opsForValue().get(key)).isEqualTo("2");
				}
				while (nearCache.cache().peek(keyBytes) == null);
				double flushes = flushes(registry, NearCacheMeters.FLUSHES);
				double flushed = flushes(registry, NearCacheMeters.FLUSHED_ENTRIES);
				for (Map<String, String> info : cluster.clients(master)) {
					if (info.getOrDefault("flags", "").contains("t")) {
						cluster.withAdmin(master,
								(Jedis jedis) -> jedis.clientKill(new ClientKillParams().id(info.get("id"))));
					}
				}
				await(() -> flushes(registry, NearCacheMeters.FLUSHES) > flushes);
				assertThat(flushes(registry, NearCacheMeters.FLUSHED_ENTRIES) - flushed).isGreaterThanOrEqualTo(1);
				assertThat(nearCache.cache().peek(keyBytes)).isNull();
				// Tracking comes back on its own, and the gauge says so.
				awaitTracking(nearCache, cluster, registry);
				assertThat(countingThreads()).isOne();
			});
		// The thread counting entries per master ends with the context.
		await(() -> countingThreads() == 0);
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void springCacheHitsAndMissesAreCountedAndAClearIsAFlush(String client, RedisTestCluster cluster) {
		this.runner
			.withConfiguration(AutoConfigurations.of(CacheAutoConfiguration.class, SlotwiseCacheAutoConfiguration.class,
					SlotwiseNearCacheAutoConfiguration.class))
			.withUserConfiguration(Caching.class)
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "spring.cache.type=redis",
					"spring.cache.cache-names=metered")
			.run((context) -> {
				Cache cache = context.getBean(CacheManager.class).getCache("metered");
				NearCacheRuntime nearCache = context.getBean(NearCacheRuntime.class);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				cache.put("k", "v");
				awaitTracking(nearCache, cluster, registry);
				// Misses until kept (the put is asynchronous over Lettuce, and
				// invalidated twice), then hits only.
				cluster.resetStats();
				double hits = reads(registry, "hit");
				double misses = reads(registry, "miss");
				do {
					Cache.ValueWrapper value = cache.get("k");
					if (value != null) {
						assertThat(value.get()).isEqualTo("v");
					}
					sleep(10);
				}
				while (nearCache.cache().size() == 0);
				double missed = reads(registry, "miss") - misses;
				for (int i = 0; i < 10; i++) {
					assertThat(cache.get("k").get()).isEqualTo("v");
				}
				assertThat(reads(registry, "hit") - hits).isEqualTo(10);
				assertThat(reads(registry, "miss") - misses).isEqualTo(missed)
					.isPositive()
					.isEqualTo(cluster.totalCommandCalls("get"));
				// clear() drops the cache's entries: a flush of cause clear that dropped
				// one entry.
				double clears = registry.get(NearCacheMeters.FLUSHES).tag("cause", "clear").functionCounter().count();
				double cleared = registry.get(NearCacheMeters.FLUSHED_ENTRIES)
					.tag("cause", "clear")
					.functionCounter()
					.count();
				cache.clear();
				assertThat(
						registry.get(NearCacheMeters.FLUSHES).tag("cause", "clear").functionCounter().count() - clears)
					.isGreaterThanOrEqualTo(1);
				assertThat(registry.get(NearCacheMeters.FLUSHED_ENTRIES).tag("cause", "clear").functionCounter().count()
						- cleared)
					.isEqualTo(1);
			});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableCaching
	static class Caching {

	}

	private static long countingThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.isAlive() && thread.getName().equals("slotwise-near-cache-meters"))
			.count();
	}

	private static void awaitTracking(NearCacheRuntime nearCache, RedisTestCluster cluster, MeterRegistry registry) {
		await(() -> registry.get(NearCacheMeters.LINKS).tag("state", "ready").gauge().value() == cluster.nodes()
			.size());
		// Two check intervals of the tracking, so that the slots are tracked too.
		sleep(500);
	}

	private static double reads(MeterRegistry registry, String result) {
		return registry.get(NearCacheMeters.READS).tag("result", result).functionCounter().count();
	}

	private static double counter(MeterRegistry registry, String name) {
		return registry.get(name).functionCounter().count();
	}

	private static double flushes(MeterRegistry registry, String name) {
		return registry.get(name).tag("cause", "link-lost").functionCounter().count();
	}

	private static void await(BooleanSupplier condition) {
		long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime()).as("condition met in time").isLessThan(deadline);
			sleep(10);
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
