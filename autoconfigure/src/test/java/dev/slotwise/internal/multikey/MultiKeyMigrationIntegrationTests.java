package dev.slotwise.internal.multikey;

import dev.slotwise.multikey.MultiKeyFailure;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.slotwise.internal.metrics.MultiKeyMeters;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.dao.DataAccessException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A slot migrated key by key (CLUSTER SETSLOT MIGRATING/IMPORTING + MIGRATE) while 8
 * threads run cross-slot mGet: every call returns the right values and none fails.
 */
@WithRedisCluster(dedicated = true)
class MultiKeyMigrationIntegrationTests {

	private static final int THREADS = 8;

	private static final int ASKING_THREADS = 2;

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
			tuples.put(key, valueOf(key));
		}
		List<byte[]> expected = new ArrayList<>(tuples.values());
		SlotMigration migration = SlotMigration.of(cluster, tag);
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
				migration.begin();
				Thread.sleep(100);
				migration.moveAllKeys(20);
				migration.finish();
				Thread.sleep(300);
				stop.set(true);
				readers.shutdown();
				assertThat(readers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
				assertThat(failures).isEmpty();
				assertThat(calls.get()).isGreaterThan(THREADS);
				// The readers really met the migration: the engine followed ASK redirects
				// with ASKING.
				assertThat(cluster.totalCommandCalls("asking")).isPositive();
			}
		});
	}

	/**
	 * A slot left half-way through a migration, half its keys on the target: every read
	 * of it is answered TRYAGAIN, then ASK for the moved keys, so each call sends the
	 * target a batch of ASKING + GET pairs while other threads keep the same target busy
	 * with ordinary reads. ASKING is state of the connection that carries it and holds
	 * for the next command only: were a pair split by another thread's command on a
	 * shared connection, the GET would arrive without it and bounce between the two nodes
	 * (MOVED, ASK, MOVED...) until the redirect limit fails the call.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void askRedirectsKeepTheirAskingUnderConcurrentLoad(String client, RedisTestCluster cluster) throws Exception {
		String tag = "{asked-" + client + "}";
		SlotMigration migration = SlotMigration.of(cluster, tag);
		RedisNode target = migration.target();
		byte[][] tagged = MultiKeyCommandsIntegrationTests.keys(tag + ":", 100);
		// A few keys elsewhere make every call cross-slot, so that the engine (not the
		// client's own path) follows the redirects.
		byte[][] asked = new byte[tagged.length + 5][];
		System.arraycopy(tagged, 0, asked, 0, tagged.length);
		for (int i = 0; i < 5; i++) {
			asked[tagged.length + i] = ("elsewhere-" + client + ":" + i).getBytes(StandardCharsets.UTF_8);
		}
		List<byte[]> busyKeys = new ArrayList<>();
		for (int i = 0; busyKeys.size() < 200; i++) {
			String key = "busy-" + client + ":" + i;
			if (cluster.masterServing(key).equals(target)) {
				busyKeys.add(key.getBytes(StandardCharsets.UTF_8));
			}
		}
		byte[][] busy = busyKeys.toArray(new byte[0][]);
		MultiKeyTestSupport.runner(client, cluster).run((context) -> {
			try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class)
				.getClusterConnection()) {
				Map<byte[], byte[]> tuples = new LinkedHashMap<>();
				for (byte[] key : asked) {
					tuples.put(key, valueOf(key));
				}
				for (byte[] key : busy) {
					tuples.put(key, valueOf(key));
				}
				connection.stringCommands().mSet(tuples);
				migration.begin();
				// Half the keys move: the source answers the slot's MGET with TRYAGAIN,
				// the engine splits it into GETs, and the source answers half of those
				// with ASK, so each call sends the target a batch of many ASKING + GET
				// pairs.
				List<String> moved = new ArrayList<>();
				List<String> staying = new ArrayList<>();
				for (int i = 0; i < tagged.length; i++) {
					((i % 2 == 0) ? moved : staying).add(new String(tagged[i], StandardCharsets.UTF_8));
				}
				migration.moveKeys(moved);
				cluster.resetStats();
				AtomicBoolean stop = new AtomicBoolean();
				AtomicLong askedCalls = new AtomicLong();
				ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
				ExecutorService threads = Executors.newFixedThreadPool(THREADS);
				for (int t = 0; t < THREADS; t++) {
					boolean asking = t < ASKING_THREADS;
					threads.execute(() -> {
						int turn = 0;
						while (!stop.get()) {
							try {
								if (asking) {
									check(asked, connection.stringCommands().mGet(asked), failures);
									askedCalls.incrementAndGet();
								}
								else if (turn++ % 2 == 0) {
									// Cross-slot reads: batches of one MGET per slot,
									// written command by command.
									check(busy, connection.stringCommands().mGet(busy), failures);
								}
								else {
									byte[] key = busy[turn % busy.length];
									byte[] value = connection.stringCommands().get(key);
									check(new byte[][] { key }, Arrays.asList(value), failures);
								}
							}
							catch (Throwable ex) {
								failures.add(ex);
							}
						}
					});
				}
				Thread.sleep(3000);
				stop.set(true);
				threads.shutdown();
				assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
				// Every read of the migrated slot went through the source's ASK to the
				// target, with ASKING.
				long askings = cluster.commandCalls(target, "asking");
				// The target owns no slot it would redirect a GET of these keys for,
				// unless the GET came without its ASKING: then it answers MOVED back to
				// the source. Counted by the server, even when a retry recovered.
				long movedByTarget = movedReplies(cluster, target);
				migration.moveKeys(staying);
				migration.finish();
				assertThat(failures).isEmpty();
				assertThat(askedCalls.get()).isGreaterThan(THREADS);
				assertThat(askings).isGreaterThanOrEqualTo(askedCalls.get());
				assertThat(movedByTarget).isZero();
			}
		});
		// The connections opened to follow the redirects closed with the context, like
		// all others.
		assertThat(MultiKeyTestSupport.eventually(() -> MultiKeyTestSupport.applicationConnections(cluster) == 0))
			.as("application connections gone")
			.isTrue();
	}

	/**
	 * Same-slot calls normally go to Spring Data Redis as one command. On a slot whose
	 * keys are split between source and target mid-migration the server refuses such a
	 * command with TRYAGAIN, which neither client retries; the call is then run again
	 * through the engine, which reads and deletes key by key following the ASK redirects.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void sameSlotCallsOnAHalfMigratedSlotAreServed(String client, RedisTestCluster cluster) {
		String tag = "{half-" + client + "}";
		SlotMigration migration = SlotMigration.of(cluster, tag);
		byte[][] keys = MultiKeyCommandsIntegrationTests.keys(tag + ":", 20);
		MultiKeyTestSupport.runner(client, cluster).run((context) -> {
			try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class)
				.getClusterConnection()) {
				Map<byte[], byte[]> tuples = new LinkedHashMap<>();
				for (byte[] key : keys) {
					tuples.put(key, valueOf(key));
				}
				connection.stringCommands().mSet(tuples);
				migration.begin();
				List<String> moved = new ArrayList<>();
				for (int i = 0; i < keys.length; i += 2) {
					moved.add(new String(keys[i], StandardCharsets.UTF_8));
				}
				migration.moveKeys(moved);
				try {
					Queue<Throwable> wrong = new ConcurrentLinkedQueue<>();
					check(keys, connection.stringCommands().mGet(keys), wrong);
					assertThat(wrong).isEmpty();
					assertThat(connection.keyCommands().exists(keys)).isEqualTo(keys.length);
					assertThat(connection.keyCommands().del(keys)).isEqualTo(keys.length);
					assertThat(connection.keyCommands().exists(keys)).isZero();
				}
				finally {
					migration.finish();
				}
			}
		});
	}

	/**
	 * Two nodes that redirect a slot to each other for good (the source already gave the
	 * slot away, the target still only imports it: the finishing order the specification
	 * forbids): the call fails once the redirect limit is reached, with an exception that
	 * names the slot and every hop, instead of looping or returning nulls. A same-slot
	 * call first goes through the client's own redirect handling; whatever the client
	 * makes of running out of redirects, the call ends the same way.
	 */
	@ParameterizedTest
	@CsvSource({ "jedis, false", "lettuce, false", "jedis, true", "lettuce, true" })
	void endlessRedirectsFailWithEveryHopNamed(String client, boolean sameSlot, RedisTestCluster cluster) {
		String tag = "{looping-" + client + "-" + sameSlot + "}";
		SlotMigration migration = SlotMigration.of(cluster, tag);
		RedisNode source = migration.source();
		RedisNode target = migration.target();
		List<byte[]> keyList = new ArrayList<>(
				List.of((tag + ":a").getBytes(StandardCharsets.UTF_8), (tag + ":b").getBytes(StandardCharsets.UTF_8)));
		if (!sameSlot) {
			keyList.add(("elsewhere-" + client).getBytes(StandardCharsets.UTF_8));
		}
		byte[][] keys = keyList.toArray(new byte[0][]);
		MultiKeyTestSupport.runner(client, cluster)
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class))
			.run((context) -> {
				try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class)
					.getClusterConnection()) {
					migration.begin();
					migration.giveAwayOnSourceOnly();
					cluster.resetStats();
					try {
						assertThatExceptionOfType(DataAccessException.class)
							.isThrownBy(() -> connection.stringCommands().mGet(keys))
							.satisfies((ex) -> assertThat(((MultiKeyFailure) ex).getSlots())
								.containsExactly(migration.slot()))
							.withMessageContaining("failed after 5 redirects")
							.withMessageContaining("MGET at " + target.address() + ": MOVED, ")
							.withMessageContaining("MGET at " + source.address() + ": MOVED, ");
						// The engine followed five MOVED replies and gave up on the
						// sixth, which the servers count too (a same-slot call adds the
						// client's own attempts before the engine's).
						long moved = movedReplies(cluster, source) + movedReplies(cluster, target);
						if (sameSlot) {
							assertThat(moved).isGreaterThan(6);
						}
						else {
							assertThat(moved).isEqualTo(6);
						}
						assertThat(context.getBean(MeterRegistry.class)
							.get(MultiKeyMeters.REDIRECTS)
							.tag("client", client)
							.tag("type", "moved")
							.counter()
							.count()).isEqualTo(5);
					}
					finally {
						migration.finish();
					}
					// Once the target owns the slot, the same call succeeds.
					assertThat(connection.stringCommands().mGet(keys)).containsOnlyNulls().hasSize(keys.length);
				}
			});
	}

	private static long movedReplies(RedisTestCluster cluster, RedisNode node) {
		// "errorstat_MOVED:count=3"
		return cluster.withAdmin(node, (jedis) -> jedis.info("errorstats"))
			.lines()
			.filter((line) -> line.startsWith("errorstat_MOVED:count="))
			.mapToLong((line) -> Long.parseLong(line.substring("errorstat_MOVED:count=".length()).trim()))
			.sum();
	}

	private static void check(byte[][] keys, List<byte[]> values, Queue<Throwable> failures) {
		for (int i = 0; i < keys.length; i++) {
			if (!Arrays.equals(values.get(i), valueOf(keys[i]))) {
				failures.add(new AssertionError("Wrong value for " + new String(keys[i], StandardCharsets.UTF_8) + ": "
						+ Arrays.toString(values.get(i))));
				return;
			}
		}
	}

	private static byte[] valueOf(byte[] key) {
		return ("value-of-" + new String(key, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
	}

}
