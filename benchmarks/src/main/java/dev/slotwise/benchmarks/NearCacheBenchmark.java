package dev.slotwise.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import dev.slotwise.internal.nearcache.NearCacheObserver;
import dev.slotwise.internal.nearcache.NearCacheRuntime;
import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import org.apache.commons.math3.distribution.ZipfDistribution;
import org.apache.commons.math3.random.Well19937c;
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
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.util.JedisClusterCRC16;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The near cache (issue 28) against Slotwise without it ({@code near=off}, the in-run
 * baseline), 8 callers on a real 3-master + 3-replica cluster, over Jedis and over
 * Lettuce. Keys are drawn from a Zipf distribution (exponent 0.99, as YCSB's) over 10,000
 * keys under {@code nc:}, the prefix of {@code slotwise.near-cache.key-prefixes}; the
 * cache holds up to 20,000 entries, so every hot key fits. Each trial starts its own
 * cluster, fills it (before the application starts, so no invalidation of the fill is in
 * flight), starts the application, waits until every node's invalidation link is ready,
 * and reads every key once so that the near cache holds them. Workloads:
 * <ul>
 * <li>{@code get}: {@code opsForValue().get} of a Zipf key (with the near cache on, every
 * read a hit);</li>
 * <li>{@code readWrite}: 90% {@code get}, 10% {@code set} of a Zipf key (every write is a
 * round trip and drops the key locally, its invalidations arrive from the master and the
 * replica: about 10× is the ceiling);</li>
 * <li>{@code multiGet}: {@code multiGet} of 100 keys, 90 Zipf keys under the prefix and
 * 10 uniformly random keys under {@code plain:}, which the near cache does not cover (90%
 * hits: the 10 misses go on as one {@code mGet});</li>
 * <li>{@code cacheable}: a {@code @Cacheable} method of a Zipf id on Spring Boot's
 * {@code RedisCacheManager} (JDK serialization, as Boot's default);</li>
 * <li>{@code miss}: {@code get} of covered keys in one sequence over 400,000 filled keys,
 * each read once unless the run goes round the whole sequence: the cost of the tier when
 * nothing hits (lookup, ticket, the reply kept and evicted).</li>
 * </ul>
 * The tear-down prints what the masters counted per call ({@code GET}, {@code MGET},
 * {@code SET}) and, with the near cache on, the hit ratio its observer saw, so that a
 * workload that did not hit what it claims shows. Each measurement iteration appends its
 * CPU time per call to {@code near-cache-cpu.csv} (folder {@code -Dslotwise.results}):
 * the application's (the whole process but its JIT compiler threads) and the servers'
 * ({@code used_cpu_user +
 * used_cpu_sys} of every node). With the near cache on, a hit is pure application CPU, so
 * its throughput follows the share of the 2 cores the machine's other load leaves it,
 * more than a round trip's does: the CPU per call is the figure load moves least.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(8)
public class NearCacheBenchmark {

	static final int KEYS = 10_000;

	static final int MISS_KEYS = 400_000;

	static final int MULTI_GET_HITS = 90;

	static final int MULTI_GET_MISSES = 10;

	static final double ZIPF_EXPONENT = 0.99;

	/**
	 * Zipf ranks drawn once per trial (same seed every trial), read by every caller from
	 * its own offset.
	 */
	static final int SAMPLES = 1 << 20;

	static final String PREFIX = "nc:";

	static final String PLAIN = "plain:";

	static final String MISS = PREFIX + "once:";

	static final String CACHE = "things";

	/** The client: jedis or lettuce. */
	@Param({ "jedis", "lettuce" })
	public String client;

	/** The near cache: on, or off (Slotwise without the tier, the baseline). */
	@Param({ "on", "off" })
	public String near;

	private RedisTestCluster cluster;

	private ConfigurableApplicationContext context;

	private StringRedisTemplate template;

	private Catalog catalog;

	private final String[] keys = new String[KEYS];

	private final String[] plainKeys = new String[KEYS];

	private final String[] ids = new String[KEYS];

	private final String[] values = new String[KEYS];

	private final int[] ranks = new int[SAMPLES];

	private final AtomicLong missSequence = new AtomicLong();

	private final LongAdder operations = new LongAdder();

	private final Counting observer = new Counting();

	private long callsBefore;

	private long cpuBefore;

	private double serverCpuBefore;

	/**
	 * Starts a cluster, fills it, starts the application and fills the near cache.
	 * @param params the trial's parameters (the miss workload alone needs its 400,000
	 * keys)
	 */
	@Setup(Level.Trial)
	public void setUp(BenchmarkParams params) {
		boolean missWorkload = params.getBenchmark().endsWith(".miss");
		ZipfDistribution zipf = new ZipfDistribution(new Well19937c(28), KEYS, ZIPF_EXPONENT);
		for (int i = 0; i < SAMPLES; i++) {
			this.ranks[i] = zipf.sample() - 1;
		}
		Map<String, String> data = new HashMap<>();
		for (int i = 0; i < KEYS; i++) {
			this.keys[i] = PREFIX + i;
			this.plainKeys[i] = PLAIN + i;
			this.ids[i] = Integer.toString(i);
			this.values[i] = value(i);
			data.put(this.keys[i], this.values[i]);
			data.put(this.plainKeys[i], this.values[i]);
		}
		if (missWorkload) {
			for (int i = 0; i < MISS_KEYS; i++) {
				data.put(MISS + i, value(i));
			}
		}
		this.cluster = RedisTestCluster.start(ClusterShape.DEFAULT);
		fill(data);
		boolean on = this.near.equals("on");
		this.context = new SpringApplicationBuilder(BenchmarkApplication.class, Caching.class)
			.web(WebApplicationType.NONE)
			.initializers((context) -> context.getBeanFactory().registerSingleton("countingObserver", this.observer))
			.properties("spring.data.redis.cluster.nodes=" + this.cluster.nodesProperty(),
					"spring.data.redis.client-name=slotwise-benchmark", "spring.main.banner-mode=off",
					"logging.level.root=warn", "spring.data.redis.client-type=" + this.client,
					"spring.data.redis.timeout=30s", "slotwise.enabled=true", "slotwise.near-cache.enabled=" + on,
					"slotwise.near-cache.key-prefixes=" + PREFIX, "slotwise.near-cache.max-entries=20000",
					"spring.cache.type=redis", "spring.cache.cache-names=" + CACHE)
			.run();
		this.template = this.context.getBean(StringRedisTemplate.class);
		this.catalog = this.context.getBean(Catalog.class);
		check(this.template.opsForValue().get(this.keys[0]), this.values[0]);
		if (on) {
			awaitTracking(this.context.getBean(NearCacheRuntime.class), this.cluster.nodes().size());
		}
		warm(on);
		this.cluster.resetStats();
		this.observer.reset();
	}

	/**
	 * Notes the CPU times before a measurement iteration.
	 * @param iteration the iteration's parameters
	 */
	@Setup(Level.Iteration)
	public void beforeIteration(IterationParams iteration) {
		if (iteration.getType() == IterationType.MEASUREMENT) {
			this.callsBefore = this.operations.sum();
			this.serverCpuBefore = serverCpuSeconds();
			this.cpuBefore = processCpuNanos();
		}
	}

	/**
	 * Appends a measurement iteration's CPU time per call to {@code near-cache-cpu.csv}.
	 * @param benchmark the trial's parameters
	 * @param iteration the iteration's parameters
	 */
	@TearDown(Level.Iteration)
	public void afterIteration(BenchmarkParams benchmark, IterationParams iteration) {
		if (iteration.getType() == IterationType.MEASUREMENT) {
			long cpu = processCpuNanos() - this.cpuBefore;
			double serverCpu = serverCpuSeconds() - this.serverCpuBefore;
			long calls = Math.max(1, this.operations.sum() - this.callsBefore);
			ClusterSizeBenchmark.append("near-cache-cpu.csv",
					"benchmark,client,near,calls,app_cpu_us_per_call,server_cpu_us_per_call",
					String.format(Locale.ROOT, "%s,%s,%s,%d,%.3f,%.3f",
							benchmark.getBenchmark().substring(benchmark.getBenchmark().lastIndexOf('.') + 1),
							this.client, this.near, calls, cpu / 1e3 / calls, serverCpu * 1e6 / calls));
		}
	}

	/**
	 * Prints the servers' counts per call and the near cache's hit ratio, then stops
	 * everything.
	 */
	@TearDown(Level.Trial)
	public void tearDown(BenchmarkParams params) {
		try {
			long calls = Math.max(1, this.operations.sum());
			long hits = this.observer.hits.sum();
			long misses = this.observer.misses.sum();
			System.out.printf(
					"%n[server] %s, %s, near cache %s: %d calls; per call on the masters %.4f GET, "
							+ "%.4f MGET, %.4f SET%n",
					params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1), this.client, this.near,
					calls, (double) mastersCalls("get") / calls, (double) mastersCalls("mget") / calls,
					(double) mastersCalls("set") / calls);
			if (this.near.equals("on")) {
				System.out.printf("[near-cache] keys read %d, hits %.2f%%, invalidations received %d, entries %d%n",
						hits + misses, 100.0 * hits / Math.max(1, hits + misses), this.observer.invalidations.sum(),
						this.context.getBean(NearCacheRuntime.class).cache().size());
			}
			this.context.close();
		}
		finally {
			this.cluster.close();
		}
	}

	/**
	 * The process's CPU time without its JIT compiler threads'. On 2 loaded cores C2 kept
	 * compiling the deep Spring call paths through the whole trial (13.8 s of CPU in one
	 * 45 s trial, where the 7 callers not running the set-up had 0.3 s each), which would
	 * be counted per call otherwise.
	 */
	private static long processCpuNanos() {
		long process = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
		return process - compilerCpuNanos();
	}

	/**
	 * The CPU time of the JIT compiler threads, from {@code /proc/self/task} (0 where
	 * there is none).
	 */
	private static long compilerCpuNanos() {
		java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
		if (tasks == null) {
			return 0;
		}
		long ticks = 0;
		for (java.io.File task : tasks) {
			try {
				String name = java.nio.file.Files.readString(task.toPath().resolve("comm")).trim();
				if (!name.startsWith("C1 Compiler") && !name.startsWith("C2 Compiler")) {
					continue;
				}
				String stat = java.nio.file.Files.readString(task.toPath().resolve("stat"));
				// After the name in parentheses: state is field 3, utime 14 and stime 15
				// (proc(5)).
				String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
				ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
			}
			catch (java.io.IOException | RuntimeException ex) {
				// A compiler thread that ended meanwhile: nothing to subtract.
			}
		}
		// USER_HZ is 100 on Linux.
		return ticks * 10_000_000L;
	}

	/**
	 * The servers' CPU time so far ({@code used_cpu_user + used_cpu_sys}), summed over
	 * every node.
	 */
	private double serverCpuSeconds() {
		double total = 0;
		for (RedisNode node : this.cluster.nodes()) {
			String info = this.cluster.withAdmin(node, (Jedis jedis) -> jedis.info("cpu"));
			for (String line : info.lines().toList()) {
				if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
					total += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
				}
			}
		}
		return total;
	}

	/**
	 * Calls of a command on the masters (a replica counts the writes it applies as well).
	 */
	private long mastersCalls(String command) {
		List<RedisNode> masters = this.cluster.masters();
		return this.cluster.commandCallsPerNode(command)
			.entrySet()
			.stream()
			.filter((calls) -> masters.contains(calls.getKey()))
			.mapToLong(Map.Entry::getValue)
			.sum();
	}

	/** One caller's place in the Zipf ranks and its own random numbers. */
	@State(Scope.Thread)
	public static class Caller {

		private final SplittableRandom random = new SplittableRandom();

		private int next = this.random.nextInt(SAMPLES);

		int rank(NearCacheBenchmark benchmark) {
			int rank = benchmark.ranks[this.next];
			this.next = (this.next + 1) & (SAMPLES - 1);
			return rank;
		}

	}

	/**
	 * One read of a Zipf key.
	 * @param caller the caller's state
	 * @return the value, consumed by JMH
	 */
	@Benchmark
	public String get(Caller caller) {
		this.operations.increment();
		return this.template.opsForValue().get(this.keys[caller.rank(this)]);
	}

	/**
	 * A read (90%) or a write (10%) of a Zipf key.
	 * @param caller the caller's state
	 * @return the value read or written, consumed by JMH
	 */
	@Benchmark
	public String readWrite(Caller caller) {
		this.operations.increment();
		int rank = caller.rank(this);
		if (caller.random.nextInt(10) == 0) {
			this.template.opsForValue().set(this.keys[rank], this.values[rank]);
			return this.values[rank];
		}
		return this.template.opsForValue().get(this.keys[rank]);
	}

	/**
	 * A {@code multiGet} of 90 Zipf keys and 10 keys the near cache does not cover.
	 * @param caller the caller's state
	 * @return the values, consumed by JMH
	 */
	@Benchmark
	public List<String> multiGet(Caller caller) {
		this.operations.increment();
		List<String> keys = new ArrayList<>(MULTI_GET_HITS + MULTI_GET_MISSES);
		for (int i = 0; i < MULTI_GET_HITS; i++) {
			keys.add(this.keys[caller.rank(this)]);
		}
		for (int i = 0; i < MULTI_GET_MISSES; i++) {
			keys.add(this.plainKeys[caller.random.nextInt(KEYS)]);
		}
		return this.template.opsForValue().multiGet(keys);
	}

	/**
	 * A call of a {@code @Cacheable} method with a Zipf id.
	 * @param caller the caller's state
	 * @return the value, consumed by JMH
	 */
	@Benchmark
	public String cacheable(Caller caller) {
		this.operations.increment();
		return this.catalog.find(this.ids[caller.rank(this)]);
	}

	/**
	 * A read of a key not read before (until the sequence of 400,000 keys goes round).
	 * @return the value, consumed by JMH
	 */
	@Benchmark
	public String miss() {
		this.operations.increment();
		return this.template.opsForValue().get(MISS + (this.missSequence.getAndIncrement() % MISS_KEYS));
	}

	/**
	 * Writes the keys with one pipeline per master, before the application (and its
	 * tracking) starts.
	 */
	private void fill(Map<String, String> data) {
		Map<Integer, RedisNode> owners = slotOwners();
		Map<RedisNode, List<String>> byMaster = new HashMap<>();
		data.keySet()
			.forEach((key) -> byMaster
				.computeIfAbsent(owners.get(JedisClusterCRC16.getSlot(key)), (master) -> new ArrayList<>())
				.add(key));
		byMaster.forEach((master, keys) -> this.cluster.withAdmin(master, (Jedis jedis) -> {
			Pipeline pipeline = jedis.pipelined();
			keys.forEach((key) -> pipeline.set(key, data.get(key)));
			pipeline.sync();
			return null;
		}));
		for (RedisNode master : this.cluster.masters()) {
			this.cluster.awaitReplicated(master, Duration.ofSeconds(30));
		}
	}

	/** The master of every slot, from {@code CLUSTER SLOTS}. */
	@SuppressWarnings("unchecked")
	private Map<Integer, RedisNode> slotOwners() {
		Map<Integer, RedisNode> owners = new HashMap<>();
		List<Object> slots = this.cluster.withAdmin(this.cluster.masters().get(0), Jedis::clusterSlots);
		for (Object range : slots) {
			List<Object> fields = (List<Object>) range;
			int first = ((Long) fields.get(0)).intValue();
			int last = ((Long) fields.get(1)).intValue();
			int port = ((Long) ((List<Object>) fields.get(2)).get(1)).intValue();
			RedisNode master = this.cluster.masters()
				.stream()
				.filter((node) -> node.port() == port)
				.findFirst()
				.orElseThrow(() -> new IllegalStateException("No master on port " + port));
			for (int slot = first; slot <= last; slot++) {
				owners.put(slot, master);
			}
		}
		return owners;
	}

	/**
	 * Reads every hot key and cache entry, twice over for the Spring cache (its entries
	 * are written by the first pass, asynchronously over Lettuce, and invalidated by the
	 * nodes), and checks that, with the near cache on, a last pass reaches no server.
	 */
	private void warm(boolean on) {
		for (int i = 0; i < KEYS; i++) {
			check(this.catalog.find(this.ids[i]), "value-" + i);
		}
		sleep(500);
		for (int pass = 0; pass < 2; pass++) {
			for (int i = 0; i < KEYS; i++) {
				check(this.template.opsForValue().get(this.keys[i]), this.values[i]);
				check(this.catalog.find(this.ids[i]), "value-" + i);
			}
			sleep(200);
			this.cluster.resetStats();
		}
		for (int i = 0; i < KEYS; i++) {
			check(this.template.opsForValue().get(this.keys[i]), this.values[i]);
			check(this.catalog.find(this.ids[i]), "value-" + i);
		}
		long gets = this.cluster.totalCommandCalls("get");
		long expected = on ? 0 : 2L * KEYS;
		// A few keys may be read while a node's invalidation of the fill's cache writes
		// is still in flight.
		if (Math.abs(gets - expected) > KEYS / 100) {
			throw new IllegalStateException(
					String.format("%s, near cache %s: %d GETs for %d reads of warm keys, " + "expected about %d",
							this.client, this.near, gets, 2 * KEYS, expected));
		}
	}

	private static void awaitTracking(NearCacheRuntime nearCache, int nodes) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (nearCache.links().size() < nodes || !nearCache.links().values().stream().allMatch("ready"::equals)) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(
						"Tracking not ready: " + nearCache.links() + ", " + nearCache.refused());
			}
			sleep(50);
		}
		// Two more of the tracking's checks (every 200 ms), so that the slots are tracked
		// too.
		sleep(400);
	}

	private static String value(int i) {
		StringBuilder value = new StringBuilder("value-").append(i).append('-');
		while (value.length() < 64) {
			value.append('x');
		}
		return value.toString();
	}

	private void check(String actual, String expected) {
		if (!expected.equals(actual)) {
			throw new IllegalStateException(
					this.client + ", near cache " + this.near + ": read " + actual + ", expected " + expected);
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

	/** The {@code @Cacheable} service and caching, beside the benchmark application. */
	@Configuration(proxyBeanMethods = false)
	@EnableCaching
	public static class Caching {

		@Bean
		Catalog catalog() {
			return new Catalog();
		}

	}

	/**
	 * A service whose lookups Spring caches in Redis (and, with the near cache on, in
	 * memory).
	 */
	public static class Catalog {

		/**
		 * Looks a value up; called only on a cache miss.
		 * @param id the id
		 * @return its value
		 */
		@Cacheable(CACHE)
		public String find(String id) {
			return "value-" + id;
		}

	}

	/** Counts what the near cache reports: hits, misses, invalidations. */
	static final class Counting implements NearCacheObserver {

		final LongAdder hits = new LongAdder();

		final LongAdder misses = new LongAdder();

		final LongAdder invalidations = new LongAdder();

		@Override
		public void read(boolean hit, int count) {
			(hit ? this.hits : this.misses).add(count);
		}

		@Override
		public void invalidations(int keys) {
			this.invalidations.add(keys);
		}

		void reset() {
			this.hits.reset();
			this.misses.reset();
			this.invalidations.reset();
		}

	}

}
