package dev.slotwise.internal.nearcache;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.autoconfigure.SlotwiseCacheAutoConfiguration;
import dev.slotwise.autoconfigure.SlotwiseNearCacheAutoConfiguration;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The near cache on a real cluster, both clients, on and off in the same test: template
 * reads and Spring caches return what plain Spring Boot returns; with the near cache on,
 * repeated reads of a key stop reaching the servers (counted in their
 * {@code INFO commandstats}); a write by another client is seen once its invalidation
 * arrived (the delay is measured and printed); every node (masters and replicas) holds
 * one tracking connection in {@code BCAST} mode.
 */
@WithRedisCluster
class NearCacheIntegrationTests {

	private static final String PREFIX = "hot:";

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void templateReadsAreServedFromMemoryUntilAnotherClientWrites(String client, RedisTestCluster cluster) {
		runner(client, cluster).withPropertyValues("slotwise.near-cache.enabled=true").run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			NearCacheRuntime nearCache = context.getBean(NearCacheRuntime.class);
			template.opsForValue().set(PREFIX + "a", "1");
			template.opsForValue().set("cold:a", "1");
			awaitTracking(nearCache, cluster);
			assertThat(template.opsForValue().get(PREFIX + "a")).isEqualTo("1");
			cluster.resetStats();
			for (int i = 0; i < 100; i++) {
				assertThat(template.opsForValue().get(PREFIX + "a")).isEqualTo("1");
				assertThat(template.opsForValue().get("cold:a")).isEqualTo("1");
			}
			// The hot key's reads stayed in memory; the cold key's (no prefix) went to
			// Redis every time.
			assertThat(cluster.totalCommandCalls("get")).isEqualTo(100);
			List<String> keys = new ArrayList<>();
			for (int i = 0; i < 50; i++) {
				keys.add(PREFIX + i);
				template.opsForValue().set(PREFIX + i, "v" + i);
			}
			// Every write is invalidated twice, by its master and by the replica applying
			// it: a read between the two is answered but not kept. Once both arrived, one
			// multiGet caches every key.
			settle();
			assertThat(template.opsForValue().multiGet(keys)).hasSize(50);
			cluster.resetStats();
			List<String> values = template.opsForValue().multiGet(keys);
			assertThat(values).containsExactlyElementsOf(keys.stream().map((k) -> "v" + k.substring(4)).toList());
			assertThat(cluster.totalCommandCalls("mget") + cluster.totalCommandCalls("get")).isZero();
			// Periodic checks that find the topology unchanged flush nothing: a second
			// later the same reads still stay in memory.
			sleep(NearCacheRuntime.CHECK_INTERVAL.toMillis() * 5);
			assertThat(template.opsForValue().multiGet(keys)).containsExactlyElementsOf(values);
			assertThat(cluster.totalCommandCalls("mget") + cluster.totalCommandCalls("get")).isZero();
			// Another client writes: the next reads see it once the node's invalidation
			// arrived.
			List<Long> delays = new ArrayList<>();
			byte[] key = (PREFIX + "a").getBytes(StandardCharsets.UTF_8);
			for (int i = 0; i < 200; i++) {
				// Read until kept: a read answered between the master's and the replica's
				// invalidation is not kept.
				long readFrom = System.nanoTime();
				do {
					assertThat(template.opsForValue().get(PREFIX + "a")).isEqualTo(Integer.toString(i + 1));
					assertThat(System.nanoTime() - readFrom).as("cached before the write").isLessThan(2_000_000_000L);
				}
				while (nearCache.cache().peek(key) == null);
				writeElsewhere(cluster, PREFIX + "a", Integer.toString(i + 2));
				long written = System.nanoTime();
				while (nearCache.cache().peek(key) != null) {
					assertThat(System.nanoTime() - written).as("invalidation arrived").isLessThan(5_000_000_000L);
					Thread.onSpinWait();
				}
				delays.add(System.nanoTime() - written);
				settle();
			}
			assertThat(template.opsForValue().get(PREFIX + "a")).isEqualTo("201");
			Collections.sort(delays);
			System.out.printf(
					"[near-cache] %s invalidation delay from the write's acknowledgement: p50 %.2f ms, "
							+ "p99 %.2f ms, max %.2f ms (%d writes)%n",
					client, delays.get(delays.size() / 2) / 1e6, delays.get(delays.size() * 99 / 100) / 1e6,
					delays.get(delays.size() - 1) / 1e6, delays.size());
			// One tracking connection per node, in BCAST mode on the prefix.
			for (RedisNode node : cluster.nodes()) {
				long tracking = cluster.clients(node)
					.stream()
					.filter((info) -> info.getOrDefault("flags", "").contains("t")
							&& info.getOrDefault("flags", "").contains("B"))
					.count();
				assertThat(tracking).as("tracking connections on %s", node).isOne();
			}
		});
		for (String off : List.of("slotwise.near-cache.enabled=false", "slotwise.enabled=false")) {
			runner(client, cluster).withPropertyValues(off).run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				assertThat(context).doesNotHaveBean(NearCacheRuntime.class);
				template.opsForValue().set(PREFIX + "a", "1");
				cluster.resetStats();
				for (int i = 0; i < 100; i++) {
					assertThat(template.opsForValue().get(PREFIX + "a")).isEqualTo("1");
				}
				assertThat(cluster.totalCommandCalls("get")).as(off).isEqualTo(100);
				for (RedisNode node : cluster.nodes()) {
					assertThat(cluster.clients(node)
						.stream()
						.filter((info) -> info.getOrDefault("flags", "").contains("t"))).as(off).isEmpty();
				}
			});
		}
	}

	@org.junit.jupiter.api.Test
	void reactiveTemplateReadsAreServedFromMemoryUntilAnotherClientWrites(RedisTestCluster cluster) {
		List<List<String>> runs = new ArrayList<>();
		for (boolean on : new boolean[] { true, false }) {
			List<String> seen = new ArrayList<>();
			runs.add(seen);
			runner("lettuce", cluster).withPropertyValues("slotwise.near-cache.enabled=" + on).run((context) -> {
				ReactiveStringRedisTemplate template = new ReactiveStringRedisTemplate(
						context.getBean(ReactiveRedisConnectionFactory.class));
				List<String> keys = new ArrayList<>();
				for (int i = 0; i < 20; i++) {
					keys.add(PREFIX + "r" + i);
					template.opsForValue().set(PREFIX + "r" + i, "v" + i).block();
				}
				if (on) {
					// Tracking starts with the first reactive read.
					template.opsForValue().get(PREFIX + "r0").block();
					awaitTracking(context.getBean(NearCacheRuntime.class), cluster);
				}
				settle();
				seen.add(template.opsForValue().get(PREFIX + "r0").block());
				seen.add(String.valueOf(template.opsForValue().multiGet(keys).block()));
				cluster.resetStats();
				for (int i = 0; i < 50; i++) {
					assertThat(template.opsForValue().get(PREFIX + "r0").block()).isEqualTo("v0");
					assertThat(template.opsForValue().multiGet(keys).block()).hasSize(20);
				}
				long remote = cluster.totalCommandCalls("get") + cluster.totalCommandCalls("mget");
				assertThat(remote).as("GET and MGET on the servers, near cache %s", on).isEqualTo(on ? 0 : remote);
				assertThat(remote).as("GET and MGET on the servers, near cache %s", on)
					.isGreaterThanOrEqualTo(on ? 0 : 100);
				// Our own write is read back at once; another client's once its
				// invalidation arrived.
				template.opsForValue().set(PREFIX + "r0", "mine").block();
				seen.add(template.opsForValue().get(PREFIX + "r0").block());
				writeElsewhere(cluster, PREFIX + "r1", "theirs");
				long deadline = System.nanoTime() + 5_000_000_000L;
				while (!"theirs".equals(template.opsForValue().get(PREFIX + "r1").block())) {
					assertThat(System.nanoTime()).as("their write seen").isLessThan(deadline);
				}
				seen.add(String.valueOf(template.opsForValue().multiGet(keys).block()));
			});
		}
		assertThat(runs.get(0)).containsExactlyElementsOf(runs.get(1));
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void aUserTheServersRefuseTrackingReadsRedisAsWithoutTheNearCache(String client, RedisTestCluster cluster) {
		String user = "no-tracking-" + client;
		for (RedisNode node : cluster.nodes()) {
			cluster.withAdmin(node,
					(Jedis jedis) -> jedis.aclSetUser(user, "on", ">secret", "~*", "&*", "+@all", "-client|tracking"));
		}
		try {
			runner(client, cluster)
				.withPropertyValues("slotwise.near-cache.enabled=true", "spring.data.redis.username=" + user,
						"spring.data.redis.password=secret")
				.run((context) -> {
					StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
					NearCacheRuntime nearCache = context.getBean(NearCacheRuntime.class);
					template.opsForValue().set(PREFIX + "acl", "1");
					long deadline = System.nanoTime() + 10_000_000_000L;
					while (nearCache.refused() == null) {
						template.opsForValue().get(PREFIX + "acl");
						assertThat(System.nanoTime()).as("tracking refused").isLessThan(deadline);
						sleep(20);
					}
					assertThat(nearCache.refused()).contains("NOPERM");
					cluster.resetStats();
					for (int i = 0; i < 50; i++) {
						assertThat(template.opsForValue().get(PREFIX + "acl")).isEqualTo("1");
					}
					// Nothing is kept: every read reaches Redis, as without the near
					// cache.
					assertThat(cluster.totalCommandCalls("get")).isEqualTo(50);
					assertThat(nearCache.cache().size()).isZero();
				});
		}
		finally {
			for (RedisNode node : cluster.nodes()) {
				cluster.withAdmin(node, (Jedis jedis) -> jedis.aclDelUser(user));
			}
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void springCacheHitsComeFromMemoryAndPutsAndEvictionsKeepBothTiersRight(String client, RedisTestCluster cluster) {
		List<List<String>> runs = new ArrayList<>();
		for (boolean on : new boolean[] { true, false }) {
			List<String> seen = new ArrayList<>();
			runs.add(seen);
			String k = "k-" + on;
			String loaded = "loaded-" + on;
			cacheRunner(client, cluster).withPropertyValues("slotwise.near-cache.enabled=" + on).run((context) -> {
				Cache cache = context.getBean(CacheManager.class).getCache("things");
				// Spring Data Redis writes a cache entry asynchronously over Lettuce:
				// every step waits until its write is visible, with and without the near
				// cache alike.
				cache.put(k, "v1");
				seen.add(await(cache, k, "v1"));
				if (on) {
					awaitTracking(context.getBean(NearCacheRuntime.class), cluster);
				}
				settle();
				seen.add(String.valueOf(cache.get(k).get()));
				cluster.resetStats();
				for (int i = 0; i < 100; i++) {
					assertThat(cache.get(k).get()).isEqualTo("v1");
				}
				assertThat(cluster.totalCommandCalls("get")).as("GETs, near cache " + on).isEqualTo(on ? 0 : 100);
				cache.put(k, "v2");
				seen.add(await(cache, k, "v2"));
				cache.evict(k);
				seen.add(await(cache, k, null));
				AtomicInteger loads = new AtomicInteger();
				seen.add(cache.get(loaded, () -> "L" + loads.incrementAndGet()));
				seen.add(cache.get(loaded, () -> "L" + loads.incrementAndGet()));
				seen.add(String.valueOf(cache.invalidate()));
				seen.add(String.valueOf(cache.get(loaded)));
				cache.put(k, "v3");
				seen.add(await(cache, k, "v3"));
				// Another client deletes the entry: the cache sees it once the
				// invalidation arrived.
				String redisKey = "things::" + k;
				cluster.withAdmin(cluster.masterServing(redisKey), (Jedis jedis) -> jedis.del(redisKey));
				seen.add(await(cache, k, null));
			});
		}
		// The same sequence with and without the near cache gives the same answers.
		assertThat(runs.get(0)).containsExactlyElementsOf(runs.get(1));
	}

	/**
	 * Waits until the cache answers the expected value (or nothing), and returns what it
	 * answered.
	 */
	private static String await(Cache cache, String key, String expected) {
		long deadline = System.nanoTime() + 5_000_000_000L;
		while (true) {
			Cache.ValueWrapper wrapper = cache.get(key);
			Object value = (wrapper != null) ? wrapper.get() : null;
			if (java.util.Objects.equals(value, expected)) {
				return String.valueOf(value);
			}
			assertThat(System.nanoTime()).as("%s becomes %s, is %s", key, expected, value).isLessThan(deadline);
			sleep(1);
		}
	}

	private static void awaitTracking(NearCacheRuntime nearCache, RedisTestCluster cluster) {
		long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
		while (true) {
			Map<String, String> links = nearCache.links();
			if (links.size() == cluster.nodes().size() && links.values().stream().allMatch("ready"::equals)) {
				// One more check interval, so that the slots are tracked too.
				sleep(NearCacheRuntime.CHECK_INTERVAL.toMillis() * 2);
				return;
			}
			assertThat(System.nanoTime()).as("tracking ready on every node: %s", links).isLessThan(deadline);
			sleep(50);
		}
	}

	/**
	 * Waits for the replicas' invalidations of the writes just made (they follow the
	 * masters' by the replication lag).
	 */
	private static void settle() {
		sleep(30);
	}

	private static void writeElsewhere(RedisTestCluster cluster, String key, String value) {
		cluster.withAdmin(cluster.masterServing(key), (Jedis jedis) -> jedis.set(key, value));
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

	static ApplicationContextRunner runner(String client, RedisTestCluster cluster) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "spring.data.redis.timeout=5s",
					"slotwise.near-cache.key-prefixes=" + PREFIX);
	}

	static ApplicationContextRunner cacheRunner(String client, RedisTestCluster cluster) {
		return runner(client, cluster)
			.withConfiguration(AutoConfigurations.of(CacheAutoConfiguration.class, SlotwiseCacheAutoConfiguration.class,
					SlotwiseNearCacheAutoConfiguration.class))
			.withUserConfiguration(Caching.class)
			.withPropertyValues("spring.cache.type=redis", "spring.cache.cache-names=things");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableCaching
	static class Caching {

	}

}
