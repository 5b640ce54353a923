package dev.slotwise.internal.nearcache;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

import dev.slotwise.internal.routing.SlotHash;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.params.ClientKillParams;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.data.redis.cache.RedisCacheConfiguration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.serializer.RedisSerializationContext.SerializationPair;
import org.springframework.data.redis.serializer.RedisSerializer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The near cache is never wrong under faults: a writer application (near cache off)
 * writes rising versions to keys under the tracked prefix and records when each write was
 * acknowledged; reader threads of another application (near cache on) read them with
 * {@code get} and {@code multiGet} while one fault strikes: a master SIGKILLed (and
 * restarted), a {@code CLUSTER FAILOVER}, the slots of some keys migrated to another
 * master, {@code CLIENT KILL} of every invalidation connection, {@code CLIENT PAUSE} of a
 * master, the slots of some keys migrated to a master just added (scale-out). A Spring
 * cache is read across a failover the same way. The invariant, checked on every read: a
 * read that starts more than {@link #BOUND} after a write's acknowledgement returns that
 * write's version or a later one. The near cache must also serve hits before and after
 * the fault (a cache that keeps nothing would pass the invariant trivially). The figures
 * (reads, hits, worst lag, invalidations, flushes by cause) are printed.
 */
@WithRedisCluster(dedicated = true)
class NearCacheFaultIntegrationTests {

	/**
	 * The invalidation bound: a read starting this long after a write's acknowledgement
	 * must see that write.
	 */
	private static final Duration BOUND = Duration.ofSeconds(1);

	private static final String PREFIX = "hot:";

	private static final int KEYS = 48;

	private static final int READERS = 4;

	private static final Duration STEADY = Duration.ofSeconds(2);

	enum Fault {

		KILL, FAILOVER, MIGRATE, CLIENT_KILL, PAUSE, MIGRATE_TO_NEW_MASTER

	}

	static Stream<Arguments> runs() {
		String only = System.getProperty("nearcache.faults", "");
		return Stream.of("jedis", "lettuce")
			.flatMap((client) -> Stream.of(Fault.values())
				.filter((fault) -> only.isEmpty() || only.contains(fault.name()))
				.map((fault) -> Arguments.of(client, fault)));
	}

	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("runs")
	void noReadReturnsAVersionOlderThanTheBoundAfterItsSuccessorWasAcknowledged(String client, Fault fault,
			RedisTestCluster cluster) {
		cluster.awaitHealthy();
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < KEYS; i++) {
			keys.add(PREFIX + client + ":" + fault.name().toLowerCase() + ":" + i);
		}
		Counts counts = new Counts();
		runner(client, cluster).withPropertyValues("slotwise.near-cache.enabled=false").run((writerContext) -> {
			Writer writer = new Writer(writerContext.getBean(StringRedisTemplate.class), keys);
			writer.writeAll();
			runner(client, cluster).withPropertyValues("slotwise.near-cache.enabled=true")
				.withBean(NearCacheObserver.class, () -> counts)
				.run((readerContext) -> {
					StringRedisTemplate template = readerContext.getBean(StringRedisTemplate.class);
					NearCacheRuntime nearCache = readerContext.getBean(NearCacheRuntime.class);
					Readers readers = new Readers(template, keys, writer);
					// Tracking starts with the first connection.
					keys.forEach((key) -> readQuietly(() -> template.opsForValue().get(key)));
					awaitTracking(nearCache, cluster);
					ExecutorService threads = startLoad(writer, readers);
					try {
						long hitsBefore = hitsDuring(counts, STEADY);
						long faultStarted = System.nanoTime();
						String what = strike(fault, cluster, keys, writer);
						long faultNanos = System.nanoTime() - faultStarted;
						cluster.awaitHealthy();
						awaitTracking(nearCache, cluster);
						long hitsAfter = hitsDuring(counts, STEADY);
						readers.stop.set(true);
						writer.stop.set(true);
						threads.shutdown();
						assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
						System.out.printf("[near-cache-fault] %s %s (%s, %.1f s): reads %d (keys), stale %d, "
								+ "worst lag %.1f ms (bound %d ms), hits %d (before the fault %d, after %d), misses %d, "
								+ "absent %d, read errors %d, writes acknowledged %d (failed %d), invalidations %d, "
								+ "flushes %s%n", client, fault, what, faultNanos / 1e9, readers.reads.sum(),
								readers.staleCount.sum(), readers.worstLag.get() / 1e6, BOUND.toMillis(),
								counts.hits.sum(), hitsBefore, hitsAfter, counts.misses.sum(), readers.absent.sum(),
								readers.errors.sum(), writer.acknowledged.sum(), writer.failed.sum(),
								counts.invalidations.sum(), counts.flushes());
						assertThat(readers.staleCount.sum())
							.as("reads older than %s after a newer write was acknowledged, first: %s", BOUND,
									readers.stale)
							.isZero();
						assertThat(hitsBefore).as("hits before the fault").isPositive();
						assertThat(hitsAfter).as("hits after the fault").isPositive();
						assertThat(writer.acknowledged.sum()).isGreaterThan(KEYS);
					}
					finally {
						readers.stop.set(true);
						writer.stop.set(true);
						threads.shutdownNow();
					}
				});
		});
	}

	@ParameterizedTest
	@MethodSource("clients")
	void springCacheReadsAreNeverOlderThanTheBoundAcrossAFailover(String client, RedisTestCluster cluster) {
		cluster.awaitHealthy();
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 24; i++) {
			keys.add("things::" + i);
		}
		Counts counts = new Counts();
		// The writer writes the Redis keys of the cache's entries as plain strings: the
		// reader's cache reads them with a string serializer, so the value is the
		// version.
		runner(client, cluster).withPropertyValues("slotwise.near-cache.enabled=false").run((writerContext) -> {
			Writer writer = new Writer(writerContext.getBean(StringRedisTemplate.class), keys);
			writer.writeAll();
			NearCacheIntegrationTests.cacheRunner(client, cluster)
				.withPropertyValues("slotwise.near-cache.enabled=true", "spring.data.redis.timeout=1s")
				.withBean(NearCacheObserver.class, () -> counts)
				.withBean(RedisCacheConfiguration.class,
						() -> RedisCacheConfiguration.defaultCacheConfig()
							.serializeValuesWith(SerializationPair.fromSerializer(RedisSerializer.string())))
				.run((readerContext) -> {
					Cache cache = readerContext.getBean(CacheManager.class).getCache("things");
					NearCacheRuntime nearCache = readerContext.getBean(NearCacheRuntime.class);
					Readers readers = new Readers(null, keys, writer) {

						@Override
						void read(Random random) {
							String key = keys.get(random.nextInt(keys.size()));
							long start = System.nanoTime();
							Cache.ValueWrapper wrapper = cache.get(key.substring("things::".length()));
							check(key, (wrapper != null) ? (String) wrapper.get() : null, start);
						}

					};
					// Tracking starts with the first connection.
					keys.forEach((key) -> readQuietly(() -> cache.get(key.substring("things::".length()))));
					awaitTracking(nearCache, cluster);
					ExecutorService threads = startLoad(writer, readers);
					try {
						long hitsBefore = hitsDuring(counts, STEADY);
						failover(cluster, cluster.masterServing(keys.get(0)));
						awaitTracking(nearCache, cluster);
						long hitsAfter = hitsDuring(counts, STEADY);
						readers.stop.set(true);
						writer.stop.set(true);
						threads.shutdown();
						assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
						System.out.printf("[near-cache-fault] %s spring-cache FAILOVER: reads %d, stale %d, worst lag "
								+ "%.1f ms, hits %d (before %d, after %d), misses %d, absent %d, read errors %d, writes "
								+ "acknowledged %d, invalidations %d, flushes %s%n", client, readers.reads.sum(),
								readers.staleCount.sum(), readers.worstLag.get() / 1e6, counts.hits.sum(), hitsBefore,
								hitsAfter, counts.misses.sum(), readers.absent.sum(), readers.errors.sum(),
								writer.acknowledged.sum(), counts.invalidations.sum(), counts.flushes());
						assertThat(readers.staleCount.sum()).as("stale reads, first: %s", readers.stale).isZero();
						assertThat(hitsBefore).isPositive();
						assertThat(hitsAfter).isPositive();
					}
					finally {
						readers.stop.set(true);
						writer.stop.set(true);
						threads.shutdownNow();
					}
				});
		});
	}

	static Stream<String> clients() {
		String only = System.getProperty("nearcache.faults", "");
		return (only.isEmpty() || only.contains("SPRING_CACHE")) ? Stream.of("jedis", "lettuce") : Stream.empty();
	}

	/**
	 * Strikes the fault and returns once it is over (the cluster may still be settling);
	 * says what it did.
	 */
	private static String strike(Fault fault, RedisTestCluster cluster, List<String> keys, Writer writer) {
		RedisNode victim = cluster.masterServing(keys.get(0));
		switch (fault) {
			case KILL -> {
				List<RedisNode> replicas = cluster.replicasOf(victim);
				// Replication is asynchronous: a write acknowledged by the master but not
				// yet on its replica is lost by Redis, whatever the client. The writer
				// holds still until the replica has everything.
				writer.lock.lock();
				try {
					cluster.awaitReplicated(victim, Duration.ofSeconds(10));
					cluster.kill(victim);
				}
				finally {
					writer.lock.unlock();
				}
				RedisNode promoted = await("a replica of " + victim + " to take over", Duration.ofSeconds(30),
						() -> replicas.stream()
							.filter((replica) -> isMaster(cluster, replica))
							.findFirst()
							.orElse(null));
				cluster.awaitSeenAsMasterByAll(promoted);
				sleep(1000);
				cluster.restartAndAwaitHealthy(victim);
				return "SIGKILL " + victim + ", " + promoted + " took over, restarted";
			}
			case FAILOVER -> {
				RedisNode promoted = failover(cluster, victim);
				return "CLUSTER FAILOVER of " + victim + " to " + promoted;
			}
			case MIGRATE -> {
				RedisNode target = cluster.masters()
					.stream()
					.filter((master) -> !master.equals(victim))
					.findFirst()
					.orElseThrow();
				BitSet slots = slotsOf(cluster, keys, victim);
				slots.stream().forEach((slot) -> cluster.migrateSlot(slot, target));
				return "slots " + slots + " migrated from " + victim + " to " + target;
			}
			case MIGRATE_TO_NEW_MASTER -> {
				RedisNode target = cluster.addMaster();
				// Longer than the topology's cache time-to-live
				// (slotwise.topology.cache-ttl, 5 s): the application's view knows the
				// new master, with no slots, before its first slot moves.
				sleep(6000);
				BitSet slots = slotsOf(cluster, keys, victim);
				slots.stream().forEach((slot) -> cluster.migrateSlot(slot, target));
				return "master " + target + " added, slots " + slots + " migrated from " + victim + " to it";
			}
			case CLIENT_KILL -> {
				long killed = 0;
				for (int round = 0; round < 3; round++) {
					for (RedisNode node : cluster.nodes()) {
						for (Map<String, String> info : cluster.clients(node)) {
							if (info.getOrDefault("flags", "").contains("t")) {
								killed += cluster.withAdmin(node,
										(jedis) -> jedis.clientKill(new ClientKillParams().id(info.get("id"))));
							}
						}
					}
					sleep(1000);
				}
				assertThat(killed).as("invalidation connections killed").isPositive();
				return killed + " invalidation connections killed in 3 rounds";
			}
			case PAUSE -> {
				cluster.pause(victim, Duration.ofSeconds(2));
				sleep(2500);
				return "CLIENT PAUSE 2 s of " + victim;
			}
		}
		throw new IllegalStateException(fault.name());
	}

	/** The slots of up to 4 keys that a master serves. */
	private static BitSet slotsOf(RedisTestCluster cluster, List<String> keys, RedisNode master) {
		BitSet slots = new BitSet();
		for (String key : keys) {
			int slot = SlotHash.slot(key.getBytes(StandardCharsets.UTF_8));
			if (slots.cardinality() < 4 && cluster.masterServingSlot(slot).equals(master)) {
				slots.set(slot);
			}
		}
		return slots;
	}

	/**
	 * {@code CLUSTER FAILOVER} on a replica of the master, without
	 * {@link RedisTestCluster#failover}'s wait for the replica to catch up first, which
	 * never ends under a steady writer (replicas acknowledge their offset once a second):
	 * the graceful failover itself pauses the master's clients until the replica has
	 * everything.
	 */
	private static RedisNode failover(RedisTestCluster cluster, RedisNode master) {
		RedisNode replica = cluster.replicasOf(master).get(0);
		cluster.withAdmin(replica,
				(jedis) -> jedis.sendCommand(redis.clients.jedis.Protocol.Command.CLUSTER, "FAILOVER"));
		cluster.awaitSeenAsMasterByAll(replica);
		cluster.awaitHealthy();
		return replica;
	}

	private static boolean isMaster(RedisTestCluster cluster, RedisNode node) {
		try {
			return cluster.isMaster(node);
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/**
	 * A first read, which may time out on a busy machine: it only starts the tracking.
	 */
	private static void readQuietly(Runnable read) {
		try {
			read.run();
		}
		catch (RuntimeException ex) {
			// The next one, or the workload, starts it.
		}
	}

	/** Counts the hits while the workload runs undisturbed for a while. */
	private static long hitsDuring(Counts counts, Duration duration) {
		long before = counts.hits.sum();
		sleep(duration.toMillis());
		return counts.hits.sum() - before;
	}

	private static void awaitTracking(NearCacheRuntime nearCache, RedisTestCluster cluster) {
		await(() -> "tracking ready on every node: " + nearCache.links() + ", cluster "
				+ cluster.clusterNodes(cluster.nodes().get(0)), Duration.ofSeconds(30), () -> {
					Map<String, String> links = nearCache.links();
					return (links.size() == cluster.nodes().size() && links.values().stream().allMatch("ready"::equals))
							? links : null;
				});
		// One more check interval, so that the slots are tracked too.
		sleep(NearCacheRuntime.CHECK_INTERVAL.toMillis() * 2);
	}

	private static <T> T await(String what, Duration timeout, java.util.function.Supplier<T> condition) {
		return await(() -> what, timeout, condition);
	}

	private static <T> T await(java.util.function.Supplier<String> what, Duration timeout,
			java.util.function.Supplier<T> condition) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			T result = condition.get();
			if (result != null) {
				return result;
			}
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Timed out waiting for " + what.get());
			}
			sleep(50);
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

	private static ApplicationContextRunner runner(String client, RedisTestCluster cluster) {
		return NearCacheIntegrationTests.runner(client, cluster)
			.withPropertyValues("spring.data.redis.timeout=1s", "spring.data.redis.connect-timeout=1s");
	}

	/**
	 * Writes rising versions (one counter for all keys, so a version names one write),
	 * about one write every 2 ms, most of them to the even keys and a few to the odd
	 * keys, and records when each was acknowledged. A write that fails is not recorded:
	 * it may or may not have happened.
	 */
	static final class Writer implements Runnable {

		final StringRedisTemplate template;

		final List<String> keys;

		/**
		 * Per key: version → when its write was acknowledged ({@link System#nanoTime()}).
		 */
		final Map<String, ConcurrentSkipListMap<Long, Long>> acknowledgements = new ConcurrentHashMap<>();

		final AtomicLong version = new AtomicLong();

		final AtomicBoolean stop = new AtomicBoolean();

		/** Held by each write; the test takes it to hold the writer still. */
		final ReentrantLock lock = new ReentrantLock();

		final LongAdder acknowledged = new LongAdder();

		final LongAdder failed = new LongAdder();

		Writer(StringRedisTemplate template, List<String> keys) {
			this.template = template;
			this.keys = keys;
			keys.forEach((key) -> this.acknowledgements.put(key, new ConcurrentSkipListMap<>()));
		}

		void writeAll() {
			this.keys.forEach(this::write);
		}

		@Override
		public void run() {
			int next = 0;
			int rare = 0;
			while (!this.stop.get()) {
				// Even keys round and round (each about every 50 ms), odd keys one every
				// other round (each about every 3 s): an invalidation lost for a rarely
				// written key is not covered up by the next write.
				String key = this.keys.get(2 * (next++ % (this.keys.size() / 2)));
				if (next % (this.keys.size() / 2) == 0 && (next / (this.keys.size() / 2)) % 2 == 0) {
					key = this.keys.get(2 * (rare++ % (this.keys.size() / 2)) + 1);
				}
				this.lock.lock();
				try {
					write(key);
				}
				finally {
					this.lock.unlock();
				}
				LockSupport.parkNanos(2_000_000);
			}
		}

		private void write(String key) {
			long version = this.version.incrementAndGet();
			try {
				this.template.opsForValue().set(key, Long.toString(version));
				this.acknowledgements.get(key).put(version, System.nanoTime());
				this.acknowledged.increment();
			}
			catch (RuntimeException ex) {
				this.failed.increment();
			}
		}

	}

	/**
	 * Reads the keys with {@code get} and {@code multiGet} of 8, and checks every value
	 * read.
	 */
	/**
	 * Starts the writer and the readers, each reader with a random of its own (seeded by
	 * its number).
	 */
	private static ExecutorService startLoad(Runnable writer, Readers readers) {
		ExecutorService threads = Executors.newFixedThreadPool(READERS + 1);
		threads.execute(writer);
		for (int i = 0; i < READERS; i++) {
			long seed = i;
			threads.execute(() -> readers.run(new Random(seed)));
		}
		return threads;
	}

	static class Readers {

		final StringRedisTemplate template;

		final List<String> keys;

		final Writer writer;

		final AtomicBoolean stop = new AtomicBoolean();

		final LongAdder reads = new LongAdder();

		final LongAdder absent = new LongAdder();

		final LongAdder errors = new LongAdder();

		final LongAccumulator worstLag = new LongAccumulator(Math::max, 0);

		final LongAdder staleCount = new LongAdder();

		/** The first stale reads, described. */
		final ConcurrentLinkedQueue<String> stale = new ConcurrentLinkedQueue<>();

		Readers(StringRedisTemplate template, List<String> keys, Writer writer) {
			this.template = template;
			this.keys = keys;
			this.writer = writer;
		}

		void run(Random random) {
			while (!this.stop.get()) {
				try {
					read(random);
				}
				catch (RuntimeException ex) {
					this.errors.increment();
				}
				LockSupport.parkNanos(200_000);
			}
		}

		void read(Random random) {
			if (random.nextBoolean()) {
				String key = this.keys.get(random.nextInt(this.keys.size()));
				long start = System.nanoTime();
				check(key, this.template.opsForValue().get(key), start);
			}
			else {
				List<String> some = new ArrayList<>();
				for (int i = 0; i < 8; i++) {
					some.add(this.keys.get(random.nextInt(this.keys.size())));
				}
				long start = System.nanoTime();
				List<String> values = this.template.opsForValue().multiGet(some);
				for (int i = 0; i < some.size(); i++) {
					check(some.get(i), values.get(i), start);
				}
			}
		}

		/**
		 * A value is stale when a later version of the key was acknowledged more than the
		 * bound before the read started; the lag is how long before.
		 */
		void check(String key, String value, long start) {
			this.reads.increment();
			if (value == null) {
				this.absent.increment();
				return;
			}
			long version = Long.parseLong(value);
			Map.Entry<Long, Long> successor = this.writer.acknowledgements.get(key).higherEntry(version);
			if (successor == null) {
				return;
			}
			long lag = start - successor.getValue();
			this.worstLag.accumulate(lag);
			if (lag > BOUND.toNanos()) {
				this.staleCount.increment();
				if (this.stale.size() < 5) {
					this.stale.add(key + " read " + version + ", " + successor.getKey() + " acknowledged "
							+ lag / 1_000_000 + " ms before the read started");
				}
			}
		}

	}

	/** The near cache's reports, counted. */
	static final class Counts implements NearCacheObserver {

		final LongAdder hits = new LongAdder();

		final LongAdder misses = new LongAdder();

		final LongAdder invalidations = new LongAdder();

		final Map<String, LongAdder> flushes = new ConcurrentHashMap<>();

		final Map<String, LongAdder> flushedEntries = new ConcurrentHashMap<>();

		@Override
		public void read(boolean hit, int count) {
			(hit ? this.hits : this.misses).add(count);
		}

		@Override
		public void invalidations(int keys) {
			this.invalidations.add(keys);
		}

		@Override
		public void flushed(String cause, int entries) {
			this.flushes.computeIfAbsent(cause, (c) -> new LongAdder()).increment();
			this.flushedEntries.computeIfAbsent(cause, (c) -> new LongAdder()).add(entries);
		}

		String flushes() {
			Map<String, String> text = new TreeMap<>();
			this.flushes.forEach((cause, count) -> text.put(cause,
					count.sum() + "x/" + this.flushedEntries.get(cause).sum() + " entries"));
			return text.toString();
		}

	}

}
