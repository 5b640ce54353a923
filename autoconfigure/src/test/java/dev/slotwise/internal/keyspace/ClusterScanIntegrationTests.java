package dev.slotwise.internal.keyspace;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.internal.keyspace.KeyspaceTestSupport.Scanned;
import dev.slotwise.internal.metrics.KeyspaceMeters;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import redis.clients.jedis.ConnectionPool;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.KeyScanOptions;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

import static dev.slotwise.internal.keyspace.KeyspaceTestSupport.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The cluster-wide scan and keys on a real cluster, both clients: every key once or more
 * with match and type, every master walked, early close stopping every walk, and the
 * difference to plain Spring Data Redis ({@code slotwise.enabled=false}): over Jedis it
 * refuses to scan a cluster.
 */
@WithRedisCluster
class ClusterScanIntegrationTests {

	private static final int KEYS = 200_000;

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void scanReturnsEveryKeyWithMatchAndTypeFromEveryMaster(String client, RedisTestCluster cluster) {
		KeyspaceTestSupport.runner(client, cluster)
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.run((context) -> {
				RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
				Set<String> expected;
				Set<String> hashes = new HashSet<>();
				try (RedisClusterConnection connection = factory.getClusterConnection()) {
					expected = KeyspaceTestSupport.write(connection, "scan:", KEYS);
					KeyspaceTestSupport.write(connection, "other:", 1_000);
					for (int i = 0; i < 500; i++) {
						connection.hashCommands().hSet(bytes("scan-hash:" + i), bytes("f"), bytes("v"));
						hashes.add("scan-hash:" + i);
					}
				}
				cluster.resetStats();
				StringRedisTemplate template = new StringRedisTemplate(factory);
				long started = System.nanoTime();
				Scanned all;
				try (Cursor<String> cursor = template
					.scan(ScanOptions.scanOptions().match("scan:*").count(1000).build())) {
					all = drainStrings(cursor);
				}
				long slotwiseNanos = System.nanoTime() - started;
				assertThat(all.missing(expected)).as("missing").isEmpty();
				assertThat(all.keys()).hasSize(KEYS);
				for (RedisNode master : cluster.masters()) {
					assertThat(cluster.commandCalls(master, "scan")).as("SCAN calls on %s", master).isPositive();
				}
				Scanned typed;
				try (Cursor<String> cursor = template
					.scan(KeyScanOptions.scanOptions(org.springframework.data.redis.connection.DataType.HASH)
						.match("scan*")
						.count(1000)
						.build())) {
					typed = drainStrings(cursor);
				}
				assertThat(typed.keys()).isEqualTo(hashes);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get(KeyspaceMeters.SCANNED).tag("client", client).counter().count())
					.isEqualTo(all.keys().size() + all.duplicates() + typed.keys().size() + typed.duplicates());
				System.out.printf("[keyspace] %s: scan of %,d keys %d ms, duplicates %d%n", client, KEYS,
						slotwiseNanos / 1_000_000, all.duplicates());
			});
		// Plain Spring Data Redis on the same data: Jedis refuses; Lettuce walks the
		// nodes one after another.
		KeyspaceTestSupport.runner(client, cluster).withPropertyValues("slotwise.enabled=false").run((context) -> {
			StringRedisTemplate template = new StringRedisTemplate(context.getBean(RedisConnectionFactory.class));
			ScanOptions options = ScanOptions.scanOptions().match("scan:*").count(1000).build();
			if (client.equals("jedis")) {
				assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
					.isThrownBy(() -> template.scan(options).close())
					.withMessageContaining("Scan is not supported across multiple nodes within a cluster");
			}
			else {
				long started = System.nanoTime();
				try (Cursor<String> cursor = template.scan(options)) {
					assertThat(drainStrings(cursor).keys()).hasSize(KEYS);
				}
				System.out.printf("[keyspace] %s plain Spring Data: scan of %,d keys %d ms%n", client, KEYS,
						(System.nanoTime() - started) / 1_000_000);
			}
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void closingEarlyStopsEveryWalkAndReleasesNodeConnections(String client, RedisTestCluster cluster) {
		KeyspaceTestSupport.runner(client, cluster)
			.withPropertyValues("slotwise.keyspace.read-ahead=500")
			.run((context) -> {
				RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
				try (RedisClusterConnection connection = factory.getClusterConnection()) {
					KeyspaceTestSupport.write(connection, "close:", 50_000);
				}
				cluster.resetStats();
				try (RedisClusterConnection connection = factory.getClusterConnection()) {
					Cursor<byte[]> cursor = connection.keyCommands()
						.scan(ScanOptions.scanOptions().match("close:*").count(50).build());
					for (int i = 0; i < 10; i++) {
						cursor.next();
					}
					cursor.close();
					assertThat(cursor.isClosed()).isTrue();
				}
				Thread.sleep(300);
				long scans = KeyspaceTestSupport.commandCalls(cluster, cluster.nodes(), "scan");
				Thread.sleep(500);
				assertThat(KeyspaceTestSupport.commandCalls(cluster, cluster.nodes(), "scan"))
					.as("SCAN calls after close")
					.isEqualTo(scans);
				// Read-ahead bounded the walks: 50,000 keys need ~1,000 pages of 50.
				assertThat(scans).isLessThan(100);
				if (factory instanceof SlotwiseJedisConnectionFactory jedis) {
					for (ConnectionPool pool : jedis.getRequiredClusterClient().getClusterNodes().values()) {
						assertThat(pool.getNumActive()).as("borrowed connections").isZero();
					}
				}
				// Server side: no client of the application is in the middle of a SCAN.
				for (RedisNode node : cluster.nodes()) {
					assertThat(cluster.clients(node))
						.noneMatch((info) -> KeyspaceTestSupport.CLIENT_NAME.equals(info.get("name"))
								&& "scan".equals(info.get("cmd")) && !"0".equals(info.get("age"))
								&& info.get("flags") != null && info.get("flags").contains("b"));
				}
			});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void keysRunsOnEveryMasterOnce(String client, RedisTestCluster cluster) {
		KeyspaceTestSupport.runner(client, cluster).run((context) -> {
			RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
			Set<String> expected;
			try (RedisClusterConnection connection = factory.getClusterConnection()) {
				expected = KeyspaceTestSupport.write(connection, "keys:", 20_000);
				KeyspaceTestSupport.write(connection, "unrelated:", 100);
			}
			cluster.resetStats();
			assertThat(new StringRedisTemplate(factory).keys("keys:*")).isEqualTo(expected);
			for (RedisNode master : cluster.masters()) {
				assertThat(cluster.commandCalls(master, "keys")).as("KEYS on %s", master).isOne();
			}
		});
	}

	@Test
	void reactiveScanHonoursBackPressureAndStopsOnCancel(RedisTestCluster cluster) {
		KeyspaceTestSupport.runner("lettuce", cluster)
			.withPropertyValues("slotwise.keyspace.read-ahead=500")
			.run((context) -> {
				RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
				Set<String> expected;
				try (RedisClusterConnection connection = factory.getClusterConnection()) {
					expected = KeyspaceTestSupport.write(connection, "reactive:", 50_000);
					KeyspaceTestSupport.write(connection, "unrelated:", 100);
				}
				ReactiveStringRedisTemplate template = new ReactiveStringRedisTemplate(
						context.getBean(ReactiveRedisConnectionFactory.class));
				ScanOptions options = ScanOptions.scanOptions().match("reactive:*").count(50).build();
				long started = System.nanoTime();
				List<String> all = template.scan(options).collectList().block(Duration.ofSeconds(60));
				assertThat(new HashSet<>(all)).isEqualTo(expected);
				long scanned = System.nanoTime();
				List<String> keys = template.keys("reactive:*").collectList().block(Duration.ofSeconds(60));
				assertThat(keys).hasSize(expected.size());
				assertThat(new HashSet<>(keys)).isEqualTo(expected);
				System.out.printf("[keyspace] reactive scan %d ms, keys %d ms%n", (scanned - started) / 1_000_000,
						(System.nanoTime() - scanned) / 1_000_000);
				cluster.resetStats();
				AtomicLong received = new AtomicLong();
				BaseSubscriber<String> slow = new BaseSubscriber<>() {

					@Override
					protected void hookOnSubscribe(Subscription subscription) {
						subscription.request(10);
					}

					@Override
					protected void hookOnNext(String value) {
						received.incrementAndGet();
					}

				};
				template.scan(options).subscribe(slow);
				Thread.sleep(1000);
				long scans = KeyspaceTestSupport.commandCalls(cluster, cluster.nodes(), "scan");
				assertThat(received.get()).isEqualTo(10);
				// 10 keys requested, ~500 read ahead: a few dozen pages of 50 at most,
				// not the 1,000 of the whole walk.
				assertThat(scans).isLessThan(100);
				slow.dispose();
				Thread.sleep(300);
				long afterCancel = KeyspaceTestSupport.commandCalls(cluster, cluster.nodes(), "scan");
				Thread.sleep(500);
				assertThat(KeyspaceTestSupport.commandCalls(cluster, cluster.nodes(), "scan")).isEqualTo(afterCancel);
			});
	}

	private static Scanned drainStrings(Cursor<String> cursor) {
		Set<String> keys = new HashSet<>();
		List<String> all = new ArrayList<>();
		while (cursor.hasNext()) {
			String key = cursor.next();
			all.add(key);
			keys.add(key);
		}
		return new Scanned(keys, all.size() - keys.size());
	}

}
