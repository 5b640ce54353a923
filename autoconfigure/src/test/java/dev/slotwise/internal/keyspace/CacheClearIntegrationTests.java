package dev.slotwise.internal.keyspace;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.slotwise.autoconfigure.SlotwiseCacheAutoConfiguration;
import dev.slotwise.internal.metrics.KeyspaceMeters;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.Jedis;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.cache.autoconfigure.RedisCacheManagerBuilderCustomizer;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.cache.BatchStrategies;
import org.springframework.data.redis.cache.BatchStrategy;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Clearing a Redis cache of 100,000 entries on a real cluster, both clients, through
 * Spring Boot's cache auto-configuration. By default Slotwise's batch strategy
 * ({@link ClusterCacheClear}, set by {@link SlotwiseCacheAutoConfiguration}) clears:
 * every entry goes, every unrelated key stays, no master runs {@code KEYS}, no
 * {@code DEL} of the keys comes back, and a side connection pinging every master
 * meanwhile sees no stall; the same clear over plain Spring Boot
 * ({@code slotwise.enabled=false}) runs {@code KEYS} on every master. An application's
 * own writer with one of Spring Data Redis's strategies is respected: its {@code KEYS}
 * runs as it asked (on every master at once), its {@code SCAN} over Slotwise's
 * cluster-wide scan, where plain Spring Data Redis over Jedis cannot scan a cluster at
 * all.
 */
@WithRedisCluster
class CacheClearIntegrationTests {

	private static final int ENTRIES = 100_000;

	@ParameterizedTest
	@CsvSource({ "jedis, slotwise", "lettuce, slotwise", "jedis, scan", "jedis, keys", "lettuce, scan",
			"lettuce, keys" })
	void cacheClearRemovesEveryEntryAsConfigured(String client, String strategy, RedisTestCluster cluster) {
		long[] slotwisePing = new long[1];
		String[] slotwiseSlowest = new String[1];
		cacheRunner(client, cluster, strategy).withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.run((context) -> {
				RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
				Set<String> unrelated = populate(factory);
				cluster.resetStats();
				Cache cache = context.getBean(CacheManager.class).getCache("things");
				long started = System.nanoTime();
				try (Pinger pinger = new Pinger(cluster); SlowLog slowLog = new SlowLog(cluster)) {
					cache.invalidate();
					slotwisePing[0] = pinger.worstMicros();
					slotwiseSlowest[0] = slowLog.slowest();
				}
				long millis = (System.nanoTime() - started) / 1_000_000;
				assertRemaining(cluster, factory, unrelated);
				for (RedisNode master : cluster.masters()) {
					// The application's KEYS strategy is respected: one KEYS per master,
					// as over plain Spring Data.
					assertThat(cluster.commandCalls(master, "keys")).as("KEYS on %s", master)
						.isEqualTo(strategy.equals("keys") ? 1 : 0);
				}
				if (strategy.equals("slotwise")) {
					// Slotwise's strategy removed every key where the walks found it: no
					// DEL of them came back.
					assertThat(cluster.totalCommandCalls("unlink")).as("UNLINK").isPositive();
					assertThat(cluster.totalCommandCalls("del")).as("DEL").isZero();
					MeterRegistry registry = context.getBean(MeterRegistry.class);
					// SCAN may return a key twice when deletions shrink a node's table
					// under its cursor.
					assertThat(registry.get(KeyspaceMeters.DELETED).tag("client", client).counter().count())
						.isBetween((double) ENTRIES, ENTRIES * 1.01);
				}
				if (strategy.equals("scan")) {
					// The application's SCAN strategy deletes the pages itself.
					assertThat(cluster.totalCommandCalls("del")).as("DEL").isPositive();
				}
				if (client.equals("lettuce") && !strategy.equals("keys")) {
					// The asynchronous clear runs over the reactive connection's scan.
					populate(factory);
					cache.clear();
					assertThat(KeyspaceTestSupport.eventually(Duration.ofSeconds(30),
							() -> dbSize(cluster) == unrelated.size()))
						.as("async clear done")
						.isTrue();
					assertRemaining(cluster, factory, unrelated);
					for (RedisNode master : cluster.masters()) {
						assertThat(cluster.commandCalls(master, "keys")).as("KEYS on %s", master).isZero();
					}
				}
				System.out.printf(
						"[keyspace] %s %s-strategy cache clear of %,d: %d ms, worst PING %.1f ms, slowest "
								+ "command on a master %s%n",
						client, strategy, ENTRIES, millis, slotwisePing[0] / 1000.0, slotwiseSlowest[0]);
			});
		cacheRunner(client, cluster, strategy).withPropertyValues("slotwise.enabled=false").run((context) -> {
			RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
			Set<String> unrelated = populate(factory);
			cluster.resetStats();
			Cache cache = context.getBean(CacheManager.class).getCache("things");
			if (client.equals("jedis") && strategy.equals("scan")) {
				assertThatExceptionOfType(InvalidDataAccessApiUsageException.class).isThrownBy(cache::invalidate)
					.withMessageContaining("Scan is not supported across multiple nodes within a cluster");
				return;
			}
			long started = System.nanoTime();
			long worst;
			String slowest;
			try (Pinger pinger = new Pinger(cluster); SlowLog slowLog = new SlowLog(cluster)) {
				cache.invalidate();
				worst = pinger.worstMicros();
				slowest = slowLog.slowest();
			}
			long millis = (System.nanoTime() - started) / 1_000_000;
			assertRemaining(cluster, factory, unrelated);
			if (!strategy.equals("scan")) {
				// Spring Boot's default writer and the application's KEYS strategy both
				// run KEYS on every master.
				for (RedisNode master : cluster.masters()) {
					assertThat(cluster.commandCalls(master, "keys")).as("KEYS on %s", master).isOne();
				}
			}
			System.out.printf(
					"[keyspace] %s %s-strategy cache clear of %,d, plain Spring Data: %d ms, worst PING "
							+ "%.1f ms (Slotwise %.1f ms), slowest command on a master %s (Slotwise %s)%n",
					client, strategy, ENTRIES, millis, worst / 1000.0, slotwisePing[0] / 1000.0, slowest,
					slotwiseSlowest[0]);
		});
	}

	/**
	 * Spring Boot's Redis cache auto-configuration over the cluster, with the
	 * application's own writer (Spring Data Redis's non-locking writer with its
	 * {@code scan} or {@code keys} strategy) unless {@code slotwise}.
	 */
	private static ApplicationContextRunner cacheRunner(String client, RedisTestCluster cluster, String strategy) {
		ApplicationContextRunner runner = KeyspaceTestSupport.runner(client, cluster)
			.withConfiguration(
					AutoConfigurations.of(CacheAutoConfiguration.class, SlotwiseCacheAutoConfiguration.class))
			.withUserConfiguration(Caching.class)
			.withPropertyValues("spring.cache.type=redis", "spring.cache.cache-names=things");
		return switch (strategy) {
			case "scan" -> runner.withUserConfiguration(OwnScanWriter.class);
			case "keys" -> runner.withUserConfiguration(OwnKeysWriter.class);
			default -> runner;
		};
	}

	@Configuration(proxyBeanMethods = false)
	@EnableCaching
	static class Caching {

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnScanWriter {

		@Bean
		RedisCacheManagerBuilderCustomizer ownWriter(RedisConnectionFactory factory) {
			return (builder) -> builder
				.cacheWriter(RedisCacheWriter.nonLockingRedisCacheWriter(factory, BatchStrategies.scan(1000)));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnKeysWriter {

		@Bean
		RedisCacheManagerBuilderCustomizer ownWriter(RedisConnectionFactory factory) {
			return (builder) -> builder
				.cacheWriter(RedisCacheWriter.nonLockingRedisCacheWriter(factory, BatchStrategies.keys()));
		}

	}

	/**
	 * Writes the cache's entries ({@code things::i}, Spring's default key prefix) and
	 * unrelated keys, some of which share the prefix's first letters.
	 */
	private static Set<String> populate(RedisConnectionFactory factory) {
		try (RedisClusterConnection connection = factory.getClusterConnection()) {
			KeyspaceTestSupport.write(connection, "things::", ENTRIES);
			Set<String> unrelated = KeyspaceTestSupport.write(connection, "unrelated:", 900);
			unrelated.addAll(KeyspaceTestSupport.write(connection, "thing:", 100));
			return unrelated;
		}
	}

	private static void assertRemaining(RedisTestCluster cluster, RedisConnectionFactory factory,
			Set<String> unrelated) {
		assertThat(dbSize(cluster)).isEqualTo(unrelated.size());
		try (RedisClusterConnection connection = factory.getClusterConnection()) {
			byte[][] keys = unrelated.stream().map(KeyspaceTestSupport::bytes).toArray(byte[][]::new);
			assertThat(connection.keyCommands().exists(keys)).isEqualTo(unrelated.size());
		}
	}

	private static long dbSize(RedisTestCluster cluster) {
		long size = 0;
		for (RedisNode master : cluster.masters()) {
			size += cluster.withAdmin(master, Jedis::dbSize);
		}
		return size;
	}

	/**
	 * The server's own account of what blocked a master: every command slower than 1 ms
	 * in each master's slow log while open (the threshold is set back to the default on
	 * close).
	 */
	static final class SlowLog implements AutoCloseable {

		private final RedisTestCluster cluster;

		private final List<RedisNode> masters;

		SlowLog(RedisTestCluster cluster) {
			this.cluster = cluster;
			this.masters = cluster.masters();
			for (RedisNode master : this.masters) {
				cluster.withAdmin(master, (jedis) -> {
					jedis.configSet("slowlog-log-slower-than", "1000");
					jedis.configSet("slowlog-max-len", "10000");
					return jedis.slowlogReset();
				});
			}
		}

		/**
		 * Returns the slowest command any master logged, e.g. {@code "KEYS 12.3 ms"}.
		 */
		String slowest() {
			long slowest = 0;
			String command = "none over 1 ms";
			for (RedisNode master : this.masters) {
				for (redis.clients.jedis.resps.Slowlog entry : this.cluster.withAdmin(master,
						(jedis) -> jedis.slowlogGet(10000))) {
					if (entry.getExecutionTime() > slowest) {
						slowest = entry.getExecutionTime();
						command = entry.getArgs().get(0).toUpperCase(java.util.Locale.ROOT) + " "
								+ String.format(java.util.Locale.ROOT, "%.1f ms", slowest / 1000.0);
					}
				}
			}
			return command;
		}

		@Override
		public void close() {
			for (RedisNode master : this.masters) {
				this.cluster.withAdmin(master, (jedis) -> {
					jedis.configSet("slowlog-log-slower-than", "10000");
					return jedis.configSet("slowlog-max-len", "128");
				});
			}
		}

	}

	/**
	 * Pings every master every 2 ms from connections of its own, keeping the worst round
	 * trip.
	 */
	static final class Pinger implements AutoCloseable {

		private final AtomicBoolean stop = new AtomicBoolean();

		private final AtomicLong worst = new AtomicLong();

		private final Thread thread;

		Pinger(RedisTestCluster cluster) {
			List<RedisNode> masters = cluster.masters();
			this.thread = new Thread(() -> {
				List<Jedis> connections = masters.stream().map((node) -> new Jedis(node.host(), node.port())).toList();
				try {
					while (!this.stop.get()) {
						for (Jedis jedis : connections) {
							long started = System.nanoTime();
							jedis.ping();
							this.worst.accumulateAndGet((System.nanoTime() - started) / 1000, Math::max);
						}
						Thread.sleep(2);
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				finally {
					connections.forEach(Jedis::close);
				}
			}, "keyspace-pinger");
			this.thread.start();
		}

		long worstMicros() {
			return this.worst.get();
		}

		@Override
		public void close() throws InterruptedException {
			this.stop.set(true);
			this.thread.join(5000);
		}

	}

}
