package dev.slotwise.multikey;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.LinkedHashMap;

import dev.slotwise.routing.SlotHash;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A slot migrated key by key (CLUSTER SETSLOT MIGRATING/IMPORTING + MIGRATE) while 8 threads run cross-slot mGet:
 * every call returns the right values and none fails.
 */
@WithRedisCluster(dedicated = true)
class MultiKeyMigrationIntegrationTests {

	private static final int THREADS = 8;

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void mGetDuringSlotMigrationReturnsRightValuesWithoutError(String client, RedisTestCluster cluster)
			throws Exception {
		String tag = "{migrating-" + client + "}";
		byte[][] migrating = MultiKeyCommandsIntegrationTests.keys(tag + ":", 300);
		byte[][] others = MultiKeyCommandsIntegrationTests.keys("other-" + client + ":", 300);
		byte[][] keys = new byte[migrating.length + others.length][];
		for (int i = 0; i < migrating.length; i++) {
			keys[2 * i] = migrating[i];
			keys[2 * i + 1] = others[i];
		}
		Map<byte[], byte[]> tuples = new LinkedHashMap<>();
		for (byte[] key : keys) {
			tuples.put(key, ("value-of-" + new String(key, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8));
		}
		List<byte[]> expected = new ArrayList<>(tuples.values());
		int slot = SlotHash.slot(tag.getBytes(StandardCharsets.UTF_8));
		MultiKeyTestSupport.runner(client, cluster).run((context) -> {
			try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class)
				.getClusterConnection()) {
				connection.stringCommands().mSet(tuples);
				AtomicBoolean stop = new AtomicBoolean();
				AtomicLong calls = new AtomicLong();
				ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
				CountDownLatch started = new CountDownLatch(THREADS);
				ExecutorService readers = Executors.newFixedThreadPool(THREADS);
				for (int t = 0; t < THREADS; t++) {
					readers.execute(() -> {
						started.countDown();
						while (!stop.get()) {
							try {
								List<byte[]> values = connection.stringCommands().mGet(keys);
								for (int i = 0; i < keys.length; i++) {
									if (!Arrays.equals(values.get(i), expected.get(i))) {
										failures.add(new AssertionError("Wrong value for key #" + i));
										break;
									}
								}
								calls.incrementAndGet();
							}
							catch (Throwable ex) {
								failures.add(ex);
							}
						}
					});
				}
				started.await(5, TimeUnit.SECONDS);
				migrate(cluster, slot);
				Thread.sleep(300);
				stop.set(true);
				readers.shutdown();
				assertThat(readers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
				assertThat(failures).isEmpty();
				assertThat(calls.get()).isGreaterThan(THREADS);
				// The readers really met the migration: the engine followed ASK redirects with ASKING.
				assertThat(cluster.totalCommandCalls("asking")).isPositive();
			}
		});
	}

	/**
	 * Moves a slot to another master a few keys at a time, pausing between steps so that readers see every state.
	 */
	private static void migrate(RedisTestCluster cluster, int slot) throws InterruptedException {
		List<RedisNode> masters = cluster.masters();
		RedisNode source = masters.stream().filter((master) -> servesSlot(cluster, master, slot)).findFirst()
			.orElseThrow();
		RedisNode target = masters.stream().filter((master) -> !master.equals(source)).findFirst().orElseThrow();
		String sourceId = cluster.withAdmin(source, Jedis::clusterMyId);
		String targetId = cluster.withAdmin(target, Jedis::clusterMyId);
		cluster.withAdmin(target, (jedis) -> jedis.clusterSetSlotImporting(slot, sourceId));
		cluster.withAdmin(source, (jedis) -> jedis.clusterSetSlotMigrating(slot, targetId));
		Thread.sleep(100);
		while (true) {
			List<String> batch = cluster.withAdmin(source, (jedis) -> jedis.clusterGetKeysInSlot(slot, 20));
			if (batch.isEmpty()) {
				break;
			}
			List<String> args = new ArrayList<>(List.of(target.host(), String.valueOf(target.port()), "", "0", "5000",
					"KEYS"));
			args.addAll(batch);
			cluster.withAdmin(source, (jedis) -> jedis.sendCommand(Protocol.Command.MIGRATE, args.toArray(new String[0])));
			Thread.sleep(20);
		}
		for (RedisNode master : masters) {
			cluster.withAdmin(master, (jedis) -> jedis.clusterSetSlotNode(slot, targetId));
		}
	}

	private static boolean servesSlot(RedisTestCluster cluster, RedisNode master, int slot) {
		String myself = cluster.clusterNodes(master).stream().filter((line) -> line.contains("myself")).findFirst()
			.orElseThrow();
		String[] fields = myself.split(" ");
		// Fields 8 and on are the slot ranges the node serves ("0-5460", "5461", "[...]" for migrations).
		for (int i = 8; i < fields.length; i++) {
			if (fields[i].matches("\\d+(-\\d+)?")) {
				String[] bounds = fields[i].split("-");
				if (slot >= Integer.parseInt(bounds[0]) && slot <= Integer.parseInt(bounds[bounds.length - 1])) {
					return true;
				}
			}
		}
		return false;
	}

}
