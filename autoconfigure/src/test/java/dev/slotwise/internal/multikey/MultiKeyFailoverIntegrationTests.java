package dev.slotwise.internal.multikey;

import dev.slotwise.multikey.MultiKeyFailure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.slotwise.internal.routing.SlotHash;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A master killed while 4 threads run cross-slot mGet: every call returns the right
 * values or fails with a {@link MultiKeyFailure}; never a wrong value or a silent null.
 * After the failover, calls succeed again.
 */
@WithRedisCluster(dedicated = true)
class MultiKeyFailoverIntegrationTests {

	private static final int THREADS = 4;

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void mGetAcrossMasterFailoverIsRightOrFailsClearly(String client, RedisTestCluster cluster) throws Exception {
		byte[][] keys = MultiKeyCommandsIntegrationTests.keys("failover-" + client + ":", 600);
		Map<byte[], byte[]> tuples = new LinkedHashMap<>();
		for (byte[] key : keys) {
			tuples.put(key, key);
		}
		MultiKeyTestSupport.runner(client, cluster)
			.withPropertyValues("slotwise.multikey.timeout=2s", "spring.data.redis.timeout=1s")
			.run((context) -> {
				try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class)
					.getClusterConnection()) {
					connection.stringCommands().mSet(tuples);
					cluster.awaitHealthy();
					RedisNode victim = ownerOf(cluster, keys[0]);
					// Replication is asynchronous: a failover may lose writes the replica
					// never received, which is Redis's behaviour, not the client's. Start
					// only once the replica has everything.
					awaitReplicated(cluster, victim);
					AtomicBoolean stop = new AtomicBoolean();
					AtomicLong correct = new AtomicLong();
					ConcurrentLinkedQueue<DataAccessException> clearFailures = new ConcurrentLinkedQueue<>();
					ConcurrentLinkedQueue<Throwable> wrong = new ConcurrentLinkedQueue<>();
					ExecutorService readers = Executors.newFixedThreadPool(THREADS);
					for (int t = 0; t < THREADS; t++) {
						readers.execute(() -> {
							while (!stop.get()) {
								read(connection, keys, correct, clearFailures, wrong);
							}
						});
					}
					Thread.sleep(300);
					cluster.kill(victim);
					try {
						awaitFailover(cluster, victim);
						long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
						long before = correct.get();
						while (correct.get() < before + 50 && System.nanoTime() < deadline) {
							Thread.sleep(50);
						}
						stop.set(true);
						readers.shutdown();
						assertThat(readers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
						assertThat(wrong).isEmpty();
						assertThat(correct.get()).as("correct calls after failover")
							.isGreaterThanOrEqualTo(before + 50);
						assertThat(clearFailures).allSatisfy((ex) -> assertThat(ex.getMessage()).contains("node(s)"));
						// Afterwards every call is right again.
						for (int i = 0; i < 20; i++) {
							assertThat(connection.stringCommands().mGet(keys))
								.containsExactlyElementsOf(tuples.values());
						}
					}
					finally {
						cluster.restart(victim);
						cluster.awaitHealthy();
					}
				}
			});
	}

	private static void read(RedisClusterConnection connection, byte[][] keys, AtomicLong correct,
			ConcurrentLinkedQueue<DataAccessException> clearFailures, ConcurrentLinkedQueue<Throwable> wrong) {
		try {
			List<byte[]> values = connection.stringCommands().mGet(keys);
			for (int i = 0; i < keys.length; i++) {
				if (!Arrays.equals(values.get(i), keys[i])) {
					wrong.add(new AssertionError(((values.get(i) == null) ? "Null"
							: "Wrong value " + new String(values.get(i), StandardCharsets.UTF_8)) + " for key #" + i
							+ " (slot " + SlotHash.slot(keys[i]) + ")"));
					return;
				}
			}
			correct.incrementAndGet();
		}
		catch (DataAccessException ex) {
			if (ex instanceof MultiKeyFailure) {
				clearFailures.add(ex);
			}
			else {
				wrong.add(ex);
			}
		}
		catch (Throwable ex) {
			wrong.add(ex);
		}
	}

	private static RedisNode ownerOf(RedisTestCluster cluster, byte[] key) {
		int slot = SlotHash.slot(key);
		for (RedisNode master : cluster.masters()) {
			String myself = cluster.clusterNodes(master)
				.stream()
				.filter((line) -> line.contains("myself"))
				.findFirst()
				.orElseThrow();
			String[] fields = myself.split(" ");
			for (int i = 8; i < fields.length; i++) {
				String[] bounds = fields[i].split("-");
				if (slot >= Integer.parseInt(bounds[0]) && slot <= Integer.parseInt(bounds[bounds.length - 1])) {
					return master;
				}
			}
		}
		throw new IllegalStateException("No master serves slot " + slot);
	}

	private static void awaitReplicated(RedisTestCluster cluster, RedisNode master) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (System.nanoTime() < deadline) {
			String info = cluster.withAdmin(master, (jedis) -> jedis.info("replication"));
			long offset = info.lines()
				.filter((line) -> line.startsWith("master_repl_offset:"))
				.mapToLong((line) -> Long.parseLong(line.substring(line.indexOf(':') + 1).trim()))
				.findFirst()
				.orElse(-1);
			boolean replicated = info.lines().filter((line) -> line.matches("slave\\d+:.*")).findAny().isPresent()
					&& info.lines().filter((line) -> line.matches("slave\\d+:.*")).allMatch((line) -> {
						String field = line.substring(line.indexOf("offset=") + 7);
						return Long.parseLong(field.substring(0, field.indexOf(','))) >= offset;
					});
			if (replicated) {
				return;
			}
			Thread.sleep(20);
		}
		throw new IllegalStateException("The replica of " + master + " did not catch up within 10s");
	}

	private static void awaitFailover(RedisTestCluster cluster, RedisNode victim) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (System.nanoTime() < deadline) {
			try {
				List<RedisNode> masters = cluster.masters();
				if (masters.size() == 3 && !masters.contains(victim)) {
					return;
				}
			}
			catch (RuntimeException ex) {
				// A node is briefly unreachable during the failover; ask again.
			}
			Thread.sleep(100);
		}
		throw new IllegalStateException("No replica took over from " + victim + " within 30s");
	}

}
