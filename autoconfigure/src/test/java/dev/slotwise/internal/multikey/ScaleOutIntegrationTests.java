package dev.slotwise.internal.multikey;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.slotwise.internal.routing.SlotHash;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scale-out under load: a new master joins and 1,000 slots holding 2,000 keys move to it,
 * slot by slot in the order the cluster specification gives ({@link SlotMigration}),
 * while 8 threads run cross-slot {@code multiGet}. Every value returned is right, no call
 * fails, and the new master serves its slots' reads afterwards.
 */
@WithRedisCluster(dedicated = true)
class ScaleOutIntegrationTests {

	private static final int SLOTS = 1000;

	private static final int KEYS_PER_SLOT = 2;

	private static final int THREADS = 8;

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void slotsMovedToANewMasterUnderLoadKeepEveryValueRight(String client, RedisTestCluster cluster) {
		MultiKeyTestSupport.runner(client, cluster).run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			// 1,000 slots of one master, two keys in each.
			RedisNode source = cluster.masters().get(0);
			Map<Integer, List<String>> keysBySlot = keysInSlotsOf(cluster, source, "scale-" + client + ":");
			Map<String, String> values = new LinkedHashMap<>();
			keysBySlot.values().forEach((keys) -> keys.forEach((key) -> values.put(key, "v:" + key)));
			template.opsForValue().multiSet(values);
			List<String> keys = List.copyOf(values.keySet());

			AtomicBoolean stop = new AtomicBoolean();
			AtomicLong correct = new AtomicLong();
			ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
			Map<String, Throwable> failures = new ConcurrentHashMap<>();
			AtomicLong failed = new AtomicLong();
			ExecutorService readers = Executors.newFixedThreadPool(THREADS);
			for (int t = 0; t < THREADS; t++) {
				readers.execute(() -> {
					while (!stop.get()) {
						List<String> batch = new ArrayList<>(100);
						for (int i = 0; i < 100; i++) {
							batch.add(keys.get(ThreadLocalRandom.current().nextInt(keys.size())));
						}
						try {
							List<String> got = template.opsForValue().multiGet(batch);
							for (int i = 0; i < batch.size(); i++) {
								if (!Objects.equals(got.get(i), values.get(batch.get(i)))) {
									wrong.add(batch.get(i) + " -> " + got.get(i));
								}
							}
							correct.incrementAndGet();
						}
						catch (RuntimeException ex) {
							failed.incrementAndGet();
							failures.putIfAbsent(ex.getClass().getName() + ": " + ex.getMessage(), ex);
						}
					}
				});
			}
			RedisNode added;
			try {
				added = cluster.addMaster();
				for (int slot : keysBySlot.keySet()) {
					SlotMigration migration = new SlotMigration(cluster, slot, source, added);
					migration.begin();
					migration.moveAllKeys(0);
					migration.finish();
				}
			}
			finally {
				stop.set(true);
				readers.shutdown();
				assertThat(readers.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
			}
			System.out.printf("[scale-out] %s: correct=%d failed=%d wrong=%d%n", client, correct.get(), failed.get(),
					wrong.size());
			assertThat(wrong).as("wrong values").isEmpty();
			assertThat(failures.keySet()).as("failed calls").isEmpty();
			assertThat(correct.get()).isPositive();
			// Afterwards the new master holds the keys and serves them.
			long keysOnAdded = cluster.withAdmin(added, (jedis) -> jedis.dbSize());
			assertThat(keysOnAdded).isEqualTo((long) SLOTS * KEYS_PER_SLOT);
			cluster.resetStats();
			assertThat(template.opsForValue().multiGet(keys)).containsExactlyElementsOf(values.values());
			assertThat(cluster.commandCalls(added, "mget")).isPositive();
			assertThat(cluster.countClients(added, MultiKeyTestSupport.CLIENT_NAME)).isPositive();
		});
	}

	/**
	 * A master added and given a slot is warmed to min-idle from the topology refresh
	 * that first shows it, off the request path: no request reads or writes its slot, yet
	 * its pool holds min-idle connections, as the server's {@code CLIENT LIST} shows, and
	 * it received no data command.
	 */
	@Test
	void aNewMasterIsWarmedWithoutARequestNeedingIt(RedisTestCluster cluster) throws Exception {
		MultiKeyTestSupport.runner("jedis", cluster)
			.withPropertyValues("slotwise.topology.cache-ttl=1s")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				int minIdle = ((JedisConnectionFactory) context.getBean(RedisConnectionFactory.class)).getPoolConfig()
					.getMinIdle();
				assertThat(minIdle).isPositive();
				RedisNode source = cluster.masters().get(0);
				int moved = -1;
				for (int slot = 0; moved < 0; slot++) {
					if (cluster.masterServingSlot(slot).equals(source)) {
						moved = slot;
					}
				}
				int movedSlot = moved;
				// Keys of every slot but the one that moves: no request needs the new
				// master.
				List<String> keys = new ArrayList<>();
				for (int i = 0; keys.size() < 100; i++) {
					String key = "warm:" + i;
					if (SlotHash.slot(key.getBytes(StandardCharsets.UTF_8)) != movedSlot) {
						keys.add(key);
					}
				}
				template.opsForValue().multiGet(keys);
				RedisNode added = cluster.addMaster();
				SlotMigration migration = new SlotMigration(cluster, movedSlot, source, added);
				migration.begin();
				migration.moveAllKeys(0);
				migration.finish();
				cluster.resetStats();
				long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
				long connections = 0;
				while (connections < minIdle && System.nanoTime() < deadline) {
					// Lookups of the topology as any request makes them; the cache
					// expires after 1 s.
					template.opsForValue().multiGet(keys);
					connections = cluster.countClients(added, MultiKeyTestSupport.CLIENT_NAME);
					Thread.sleep(100);
				}
				System.out.printf("[scale-out] jedis: %d connections on the new master %s (min-idle %d)%n", connections,
						added, minIdle);
				assertThat(connections).as("application connections on the new master %s", added)
					.isGreaterThanOrEqualTo(minIdle);
				assertThat(cluster.commandCalls(added, "mget")).isZero();
				assertThat(cluster.commandCalls(added, "get")).isZero();
			});
	}

	private static Map<Integer, List<String>> keysInSlotsOf(RedisTestCluster cluster, RedisNode master, String prefix) {
		List<Integer> slots = new ArrayList<>();
		for (int slot = 0; slot < 16384 && slots.size() < SLOTS; slot++) {
			if (cluster.masterServingSlot(slot).equals(master)) {
				slots.add(slot);
			}
			else if (!slots.isEmpty()) {
				break;
			}
		}
		Map<Integer, List<String>> keys = new TreeMap<>();
		slots.forEach((slot) -> keys.put(slot, new ArrayList<>()));
		int filled = 0;
		for (long i = 0; filled < slots.size(); i++) {
			String key = prefix + i;
			List<String> inSlot = keys.get(SlotHash.slot(key.getBytes(StandardCharsets.UTF_8)));
			if (inSlot != null && inSlot.size() < KEYS_PER_SLOT) {
				inSlot.add(key);
				if (inSlot.size() == KEYS_PER_SLOT) {
					filled++;
				}
			}
		}
		return keys;
	}

}
