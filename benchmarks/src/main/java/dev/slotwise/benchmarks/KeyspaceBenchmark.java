package dev.slotwise.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.slotwise.internal.keyspace.ClusterCacheClear;
import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import redis.clients.jedis.Jedis;

import org.springframework.cache.Cache;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.cache.BatchStrategies;
import org.springframework.data.redis.cache.BatchStrategy;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The whole keyspace of a 3-master cluster holding 200,000 keys, each variant on its own
 * fresh cluster:
 * <ul>
 * <li>{@code scan}: {@code StringRedisTemplate.scan(match, count)} read to its end, with
 * {@code count} 1000 (a page size a caller walking a large keyspace would pass) and 10
 * (what every node uses when the caller passes none): the first is dominated by the
 * servers' and the client's work per key, the second by the cost of each round trip;</li>
 * <li>{@code clear}: {@code cache.invalidate()} of a Redis cache holding every one of the
 * keys, with the batch strategy each side configures on a cluster: Slotwise's
 * ({@code ClusterCacheClear}, what its cache auto-configuration sets) and Spring Data
 * Redis's SCAN strategy ({@code BatchStrategies.scan(count)}) for the baseline; the keys
 * are written again before each iteration, outside the measurement.</li>
 * </ul>
 * Targets: {@code sdr-lettuce} (Spring Data Redis over Lettuce, Slotwise off: its
 * node-by-node walk, the baseline), {@code slotwise-lettuce} and {@code slotwise-jedis}
 * (Spring Data Redis alone cannot scan a Jedis cluster).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Threads(1)
public class KeyspaceBenchmark {

	static final int KEYS = 200_000;

	/** The system under test. */
	@Param({ "sdr-lettuce", "slotwise-lettuce", "slotwise-jedis" })
	public String target;

	/**
	 * The {@code SCAN} page-size hint ({@code count}) of the scan, and the batch size of
	 * the clear's strategy.
	 */
	@Param({ "1000", "10" })
	public int count;

	private RedisTestCluster cluster;

	private ConfigurableApplicationContext context;

	private StringRedisTemplate template;

	private Cache cache;

	/** Starts a cluster and the application of the variant. */
	@Setup(Level.Trial)
	public void setUp() {
		this.cluster = RedisTestCluster.start(ClusterShape.DEFAULT);
		String client = this.target.contains("jedis") ? "jedis" : "lettuce";
		this.context = BenchmarkApplication.start(this.cluster, "spring.data.redis.client-type=" + client,
				"slotwise.enabled=" + this.target.startsWith("slotwise"), "spring.data.redis.timeout=60s");
		RedisConnectionFactory factory = this.context.getBean(RedisConnectionFactory.class);
		this.template = new StringRedisTemplate(factory);
		RedisCacheManager manager = RedisCacheManager
			.builder(RedisCacheWriter.nonLockingRedisCacheWriter(factory, cacheClear(factory, this.count)))
			.build();
		manager.afterPropertiesSet();
		this.cache = manager.getCache("bench");
	}

	/** Writes the keys (again), through the variant's connection. */
	@Setup(Level.Iteration)
	public void fill() {
		if (dbSize() == KEYS) {
			return;
		}
		try (RedisClusterConnection connection = this.context.getBean(RedisConnectionFactory.class)
			.getClusterConnection()) {
			Map<byte[], byte[]> batch = new LinkedHashMap<>();
			for (int i = 0; i < KEYS; i++) {
				batch.put(("bench::" + i).getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
				if (batch.size() == 1000) {
					// Per key on plain Spring Data Redis over Lettuce too: its cross-slot
					// mSet splits by slot itself.
					connection.stringCommands().mSet(batch);
					batch.clear();
				}
			}
		}
		if (dbSize() != KEYS) {
			throw new IllegalStateException("Expected " + KEYS + " keys, found " + dbSize());
		}
	}

	/** Stops everything. */
	@TearDown(Level.Trial)
	public void tearDown() {
		try {
			this.context.close();
		}
		finally {
			this.cluster.close();
		}
	}

	/**
	 * Scans every key.
	 * @return the number of keys returned
	 */
	@Benchmark
	public long scan() {
		long count = 0;
		try (Cursor<String> cursor = this.template
			.scan(ScanOptions.scanOptions().match("bench::*").count(this.count).build())) {
			while (cursor.hasNext()) {
				cursor.next();
				count++;
			}
		}
		if (count < KEYS) {
			throw new IllegalStateException(this.target + " scanned " + count + " of " + KEYS + " keys");
		}
		return count;
	}

	/**
	 * Clears the cache holding every key.
	 * @return whether anything was removed
	 */
	@Benchmark
	public boolean clear() {
		boolean removed = this.cache.invalidate();
		if (dbSize() != 0) {
			throw new IllegalStateException(this.target + " left " + dbSize() + " keys");
		}
		return removed;
	}

	private long dbSize() {
		long size = 0;
		for (RedisNode master : this.cluster.masters()) {
			size += this.cluster.withAdmin(master, Jedis::dbSize);
		}
		return size;
	}

	/**
	 * The batch strategy of a cache clear on the factory: Slotwise's on Slotwise's
	 * factories, as its cache auto-configuration sets it, Spring Data Redis's SCAN
	 * strategy otherwise.
	 */
	static BatchStrategy cacheClear(RedisConnectionFactory factory, int count) {
		return factory.getClass().getName().startsWith("dev.slotwise.") ? new ClusterCacheClear(count)
				: BatchStrategies.scan(count);
	}

}
