package dev.slotwise.internal.keyspace;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.slotwise.internal.keyspace.KeyspaceTestSupport.Scanned;
import dev.slotwise.internal.metrics.KeyspaceMeters;
import dev.slotwise.internal.routing.SlotHash;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cluster-wide scan while the topology changes under it, on a cluster of its own,
 * both clients: a master failed over by its replica ({@code CLUSTER FAILOVER}), a master
 * killed (its walk restarts on the successor), and a slot migrated key by key from one
 * master to another; every key present throughout is returned.
 */
@WithRedisCluster(dedicated = true)
class ClusterScanTopologyIntegrationTests {

	private static final int KEYS = 100_000;

	private static final ScanOptions OPTIONS = ScanOptions.scanOptions().match("topo:*").count(100).build();

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void scanAcrossManualFailoverMissesNoKey(String client, RedisTestCluster cluster) {
		runner(client, cluster).run((context) -> {
			RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
			try (RedisClusterConnection connection = factory.getClusterConnection()) {
				Set<String> expected = KeyspaceTestSupport.write(connection, "topo:", KEYS);
				RedisNode master = cluster.masters().get(0);
				RedisNode replica = cluster.replicasOf(master).get(0);
				cluster.awaitReplicated(master, Duration.ofSeconds(20));
				Set<String> keys = new HashSet<>();
				long returned = 0;
				try (Cursor<byte[]> cursor = connection.keyCommands().scan(OPTIONS)) {
					returned += read(cursor, keys, KEYS / 3);
					cluster.withAdmin(replica, (jedis) -> jedis.sendCommand(Protocol.Command.CLUSTER, "FAILOVER"));
					assertThat(KeyspaceTestSupport.eventually(Duration.ofSeconds(20), () -> cluster.isMaster(replica)))
						.as("%s took over", replica)
						.isTrue();
					returned += read(cursor, keys, Integer.MAX_VALUE);
				}
				Scanned scanned = new Scanned(keys, returned - keys.size());
				assertThat(scanned.missing(expected)).as("missing").isEmpty();
				System.out.printf("[keyspace] %s: scan across a manual failover, %,d keys, %d missing, %d duplicates%n",
						client, KEYS, scanned.missing(expected).size(), scanned.duplicates());
				cluster.awaitHealthy();
			}
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void scanAcrossKilledMasterRestartsItsWalkOnTheSuccessor(String client, RedisTestCluster cluster) {
		runner(client, cluster).run((context) -> {
			RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
			try (RedisClusterConnection connection = factory.getClusterConnection()) {
				Set<String> expected = KeyspaceTestSupport.write(connection, "topo:", KEYS);
				RedisNode victim = cluster.masters().get(0);
				cluster.awaitReplicated(victim, Duration.ofSeconds(20));
				Set<String> keys = new HashSet<>();
				long returned = 0;
				try (Cursor<byte[]> cursor = connection.keyCommands().scan(OPTIONS)) {
					returned += read(cursor, keys, KEYS / 3);
					cluster.kill(victim);
					try {
						returned += read(cursor, keys, Integer.MAX_VALUE);
					}
					finally {
						cluster.restart(victim);
					}
				}
				Scanned scanned = new Scanned(keys, returned - keys.size());
				assertThat(scanned.missing(expected)).as("missing").isEmpty();
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get(KeyspaceMeters.RESTARTS).tag("client", client).counter().count())
					.isGreaterThanOrEqualTo(1);
				assertThat(registry.get(KeyspaceMeters.DUPLICATES).tag("client", client).counter().count())
					.isGreaterThanOrEqualTo(scanned.duplicates());
				System.out.printf(
						"[keyspace] %s: scan across a killed master, %,d keys, %d missing, %d duplicates "
								+ "(meter bound %.0f)%n",
						client, KEYS, scanned.missing(expected).size(), scanned.duplicates(),
						registry.get(KeyspaceMeters.DUPLICATES).tag("client", client).counter().count());
				cluster.awaitHealthy();
			}
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void scanAcrossSlotMigrationMissesNoKey(String client, RedisTestCluster cluster) {
		runner(client, cluster).run((context) -> {
			RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
			try (RedisClusterConnection connection = factory.getClusterConnection()) {
				String tag = "{topo-" + client + "}";
				Set<String> expected = KeyspaceTestSupport.write(connection, "topo:", KEYS);
				expected.addAll(KeyspaceTestSupport.write(connection, "topo:" + tag + ":", 5_000));
				int slot = SlotHash.slot(tag.getBytes(StandardCharsets.UTF_8));
				RedisNode source = cluster.masterServingSlot(slot);
				RedisNode target = cluster.masters()
					.stream()
					.filter((master) -> !master.equals(source))
					.findFirst()
					.orElseThrow();
				Set<String> keys = new HashSet<>();
				long returned = 0;
				try (Cursor<byte[]> cursor = connection.keyCommands().scan(OPTIONS)) {
					returned += read(cursor, keys, (KEYS + 5_000) / 2);
					migrate(cluster, slot, source, target);
					returned += read(cursor, keys, Integer.MAX_VALUE);
				}
				Scanned scanned = new Scanned(keys, returned - keys.size());
				assertThat(cluster.masterServingSlot(slot)).isEqualTo(target);
				assertThat(scanned.missing(expected)).as("missing").isEmpty();
				System.out.printf("[keyspace] %s: scan across a slot migration, %,d keys, %d missing, %d duplicates%n",
						client, expected.size(), scanned.missing(expected).size(), scanned.duplicates());
				migrate(cluster, slot, target, source);
			}
		});
	}

	/**
	 * A cache clear removes keys on the master whose walk found them; while a slot
	 * migrates key by key under it, the source refuses (ASK) the removal of keys already
	 * moved, and the cache's own delete, routed by Slotwise, removes them: no entry is
	 * left.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void cacheClearAcrossSlotMigrationLeavesNoEntry(String client, RedisTestCluster cluster) {
		runner(client, cluster).run((context) -> {
			RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
			String tag = "{clear-" + client + "}";
			try (RedisClusterConnection connection = factory.getClusterConnection()) {
				KeyspaceTestSupport.write(connection, "clear::", KEYS);
				KeyspaceTestSupport.write(connection, "clear::" + tag + ":", 5_000);
			}
			int slot = SlotHash.slot(tag.getBytes(StandardCharsets.UTF_8));
			RedisNode source = cluster.masterServingSlot(slot);
			RedisNode target = cluster.masters()
				.stream()
				.filter((master) -> !master.equals(source))
				.findFirst()
				.orElseThrow();
			long before = dbSize(cluster);
			RedisCacheManager manager = RedisCacheManager
				.builder(RedisCacheWriter.nonLockingRedisCacheWriter(factory, new ClusterCacheClear(100)))
				.build();
			manager.afterPropertiesSet();
			Cache cache = manager.getCache("clear");
			AtomicBoolean migratedDuringClear = new AtomicBoolean();
			AtomicBoolean clearing = new AtomicBoolean(true);
			Thread mover = new Thread(() -> {
				// Once a third of the entries are gone, the slot moves, key by key.
				KeyspaceTestSupport.eventually(Duration.ofSeconds(60), () -> dbSize(cluster) < before - KEYS / 3);
				migrate(cluster, slot, source, target);
				migratedDuringClear.set(clearing.get());
			});
			mover.start();
			cache.invalidate();
			clearing.set(false);
			mover.join();
			assertThat(cluster.masterServingSlot(slot)).isEqualTo(target);
			for (RedisNode master : cluster.masters()) {
				Set<String> left = cluster.withAdmin(master, (Jedis jedis) -> jedis.keys("clear::*"));
				assertThat(left).as("left on %s", master).isEmpty();
			}
			System.out.printf("[keyspace] %s: cache clear across a slot migration, %,d entries, migration %s%n", client,
					KEYS + 5_000, migratedDuringClear.get() ? "finished during the clear" : "ended after it");
			migrate(cluster, slot, target, source);
		});
	}

	private static long dbSize(RedisTestCluster cluster) {
		long size = 0;
		for (RedisNode master : cluster.masters()) {
			size += cluster.withAdmin(master, Jedis::dbSize);
		}
		return size;
	}

	private static ApplicationContextRunner runner(String client, RedisTestCluster cluster) {
		return KeyspaceTestSupport.runner(client, cluster)
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("slotwise.keyspace.read-ahead=1000", "spring.data.redis.timeout=3s");
	}

	private static long read(Cursor<byte[]> cursor, Set<String> keys, int limit) {
		long read = 0;
		while (read < limit && cursor.hasNext()) {
			keys.add(KeyspaceTestSupport.string(cursor.next()));
			read++;
		}
		return read;
	}

	/**
	 * Moves a slot with its keys as a resharding tool does: importing and migrating
	 * marks, MIGRATE in batches, then the owner on the target, the source and the other
	 * masters.
	 */
	private static void migrate(RedisTestCluster cluster, int slot, RedisNode source, RedisNode target) {
		String sourceId = cluster.withAdmin(source, Jedis::clusterMyId);
		String targetId = cluster.withAdmin(target, Jedis::clusterMyId);
		cluster.withAdmin(target, (jedis) -> jedis.clusterSetSlotImporting(slot, sourceId));
		cluster.withAdmin(source, (jedis) -> jedis.clusterSetSlotMigrating(slot, targetId));
		while (true) {
			List<String> batch = cluster.withAdmin(source, (jedis) -> jedis.clusterGetKeysInSlot(slot, 200));
			if (batch.isEmpty()) {
				break;
			}
			List<String> args = new ArrayList<>(List.of(target.host(), String.valueOf(target.port()), "", "0", "5000"));
			args.addAll(cluster.security().migrateAuthentication());
			args.add("KEYS");
			args.addAll(batch);
			cluster.withAdmin(source,
					(jedis) -> jedis.sendCommand(Protocol.Command.MIGRATE, args.toArray(new String[0])));
		}
		List<RedisNode> order = new ArrayList<>(List.of(target, source));
		cluster.masters().stream().filter((master) -> !order.contains(master)).forEach(order::add);
		for (RedisNode master : order) {
			cluster.withAdmin(master, (jedis) -> jedis.clusterSetSlotNode(slot, targetId));
		}
	}

}
