package dev.slotwise.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The fleet benchmark (issue 19): many application contexts in one JVM on one 3-master +
 * 3-replica cluster, each with a small cross-slot load (one {@code multiGet} of 10 random
 * keys every 200 ms on a thread of its own), counted from the servers' side. Per variant
 * (Slotwise or plain Spring Boot, over Jedis or Lettuce) on a fresh cluster:
 * <ol>
 * <li>steady state: topology queries ({@code CLUSTER NODES}, {@code SLOTS},
 * {@code SHARDS} from {@code INFO commandstats}) per instance per second, and server
 * connections per instance ({@code CLIENT LIST});</li>
 * <li>outage: a master killed (its replica takes over after the 1.5 s node timeout),
 * restarted 15 s later (it rejoins as a replica): topology queries per instance per
 * second over the 30 s from the kill, per node and the largest node's share, and each
 * instance's time to recovery (from the kill to the first call after which none failed),
 * also counted from the replica's promotion (seen by polling its
 * {@code INFO replication}); and each instance's time from the promotion to its first
 * successful call that read a key of the killed master's slots (issue 31: every instance
 * routes to the promoted replica within 1 s).</li>
 * </ol>
 * Every value read is checked against what was written. Not JMH: a scenario counted on
 * the servers, like {@link MultiGetCpu}; the variants run one after another in one JVM
 * and one run. <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.slotwise.benchmarks.FleetBenchmark [instances] [variants...]
 * variants: slotwise-jedis boot-jedis slotwise-lettuce boot-lettuce, each optionally with "-min-idle-0" (the pool's
 * min-idle 0) or "-sources-N" (slotwise.topology.refresh-sources=N)
 * </pre>
 */
public final class FleetBenchmark {

	private static final List<String> VARIANTS = List.of("slotwise-jedis", "boot-jedis", "slotwise-lettuce",
			"boot-lettuce");

	private static final List<String> TOPOLOGY_COMMANDS = List.of("cluster|nodes", "cluster|slots", "cluster|shards");

	private static final int KEYSPACE = 2_000;

	private static final int KEYS_PER_CALL = 10;

	private static final Duration PERIOD = Duration.ofMillis(200);

	private static final Duration WARM_UP = Duration.ofSeconds(10);

	private static final Duration STEADY = Duration.ofSeconds(30);

	private static final Duration RESTART_AFTER = Duration.ofSeconds(15);

	private static final Duration OUTAGE = Duration.ofSeconds(30);

	private FleetBenchmark() {
	}

	public static void main(String[] args) throws Exception {
		int instances = (args.length > 0) ? Integer.parseInt(args[0]) : 40;
		List<String> variants = (args.length > 1) ? List.of(Arrays.copyOfRange(args, 1, args.length)) : VARIANTS;
		List<Result> results = new ArrayList<>();
		for (String variant : variants) {
			Result result = run(variant, instances);
			System.out.println(result.describe());
			results.add(result);
			ClusterSizeBenchmark.append("fleet.csv", Result.CSV_HEADER, result.csv());
		}
		System.out.println();
		System.out.printf(Locale.ROOT,
				"Fleet of %d application contexts in one JVM, 3 masters + 3 replicas, each "
						+ "instance one multiGet of %d random keys every %d ms%n%n",
				instances, KEYS_PER_CALL, PERIOD.toMillis());
		System.out.println(Result.TABLE_HEADER);
		for (Result result : results) {
			System.out.println(result.row());
		}
		Path folder = Path.of(System.getProperty("slotwise.results", "benchmarks/results"));
		System.out.println();
		System.out.println("CSV: " + folder.resolve("fleet.csv"));
	}

	private static Result run(String variant, int instances) throws Exception {
		System.out.printf(Locale.ROOT, "%s: starting a cluster and %d contexts ...%n", variant, instances);
		try (RedisTestCluster cluster = RedisTestCluster.start(ClusterShape.DEFAULT)) {
			populate(cluster);
			List<Instance> fleet = startFleet(cluster, variant, instances);
			try {
				fleet.forEach(Instance::startLoad);
				Thread.sleep(WARM_UP.toMillis());
				// Steady state.
				cluster.resetStats();
				long steadyStart = System.nanoTime();
				Thread.sleep(STEADY.toMillis());
				Map<RedisNode, Long> steadyQueries = topologyQueries(cluster);
				double steadySeconds = (System.nanoTime() - steadyStart) / 1e9;
				double connections = cluster.nodes()
					.stream()
					.mapToLong((node) -> cluster.clients(node)
						.stream()
						.filter((c) -> !RedisTestCluster.ADMIN_CLIENT_NAME.equals(c.get("name")))
						.count())
					.sum() / (double) instances;
				// Outage: kill a master, restart it after a while, count from the kill.
				RedisNode victim = cluster.masters().get(0);
				// Before the statistics reset: replicasOf sends CLUSTER NODES.
				RedisNode replica = cluster.replicasOf(victim).get(0);
				boolean[] victimKeys = keysServedBy(cluster, victim);
				fleet.forEach((instance) -> instance.watchKeys(victimKeys));
				cluster.resetStats();
				long kill = System.nanoTime();
				fleet.forEach((instance) -> instance.markKill(kill));
				cluster.kill(victim);
				long promoted = -1;
				while (System.nanoTime() - kill < RESTART_AFTER.toNanos()) {
					if (promoted < 0 && cluster.isMaster(replica)) {
						promoted = System.nanoTime();
					}
					Thread.sleep((promoted < 0) ? 10 : 200);
				}
				double promotionSeconds = (promoted < 0) ? Double.NaN : (promoted - kill) / 1e9;
				cluster.restart(victim);
				Thread.sleep(Math.max(0, OUTAGE.toMillis() - (System.nanoTime() - kill) / 1_000_000));
				Map<RedisNode, Long> outageQueries = topologyQueries(cluster);
				double outageSeconds = (System.nanoTime() - kill) / 1e9;
				fleet.forEach(Instance::stopLoad);
				double[] recovery = fleet.stream().mapToDouble((i) -> i.recoverySeconds()).sorted().toArray();
				long promotedAt = promoted;
				double[] routed = fleet.stream()
					.mapToDouble((i) -> (promotedAt < 0) ? Double.NaN : i.routedSeconds(promotedAt))
					.sorted()
					.toArray();
				long wrong = fleet.stream().mapToLong((i) -> i.wrong.get()).sum();
				long calls = fleet.stream().mapToLong((i) -> i.calls.get()).sum();
				long failed = fleet.stream().mapToLong((i) -> i.failures.get()).sum();
				return new Result(variant, instances, steadyQueries, steadySeconds, connections, outageQueries,
						outageSeconds, recovery, promotionSeconds, routed, calls, failed, wrong);
			}
			finally {
				fleet.forEach(Instance::close);
			}
		}
	}

	/**
	 * Which of the keys a node serves, from its own {@code CLUSTER NODES} line.
	 */
	private static boolean[] keysServedBy(RedisTestCluster cluster, RedisNode node) {
		BitSet slots = new BitSet(SlotHash.SLOT_COUNT);
		for (String line : cluster.clusterNodes(node)) {
			String[] fields = line.trim().split(" ");
			if (fields.length < 3 || !fields[2].contains("myself")) {
				continue;
			}
			for (int i = 8; i < fields.length; i++) {
				if (!fields[i].startsWith("[")) {
					String[] range = fields[i].split("-");
					int first = Integer.parseInt(range[0]);
					slots.set(first, ((range.length > 1) ? Integer.parseInt(range[1]) : first) + 1);
				}
			}
		}
		boolean[] served = new boolean[KEYSPACE];
		for (int i = 0; i < KEYSPACE; i++) {
			served[i] = slots.get(SlotHash.getSlot(key(i)));
		}
		return served;
	}

	private static void populate(RedisTestCluster cluster) {
		RedisClusterClient client = RedisClusterClient
			.create(cluster.nodes().stream().map((node) -> RedisURI.create(node.host(), node.port())).toList());
		try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
			Map<String, String> values = new LinkedHashMap<>();
			for (int i = 0; i < KEYSPACE; i++) {
				values.put(key(i), value(i));
			}
			connection.sync().mset(values);
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	private static List<Instance> startFleet(RedisTestCluster cluster, String variant, int instances) throws Exception {
		// Two at a time: start-up is CPU-bound and the machine has few cores.
		ExecutorService starters = Executors.newFixedThreadPool(2);
		try {
			List<Future<Instance>> starting = new ArrayList<>();
			for (int i = 0; i < instances; i++) {
				int id = i;
				starting.add(starters.submit(() -> {
					try {
						return new Instance(id, variant, cluster);
					}
					catch (IllegalStateException ex) {
						// Spring Boot's logging system can lose a race between contexts
						// started at the same moment ("Unable to find Spring Environment
						// in logger context"): once more, alone.
						synchronized (FleetBenchmark.class) {
							return new Instance(id, variant, cluster);
						}
					}
				}));
			}
			List<Instance> fleet = new ArrayList<>();
			for (Future<Instance> future : starting) {
				fleet.add(future.get());
			}
			return fleet;
		}
		finally {
			starters.shutdown();
		}
	}

	/**
	 * Topology queries per node since the last reset: CLUSTER NODES, SLOTS and SHARDS
	 * together.
	 */
	private static Map<RedisNode, Long> topologyQueries(RedisTestCluster cluster) {
		Map<RedisNode, Long> queries = new LinkedHashMap<>();
		for (RedisNode node : cluster.nodes()) {
			long total = 0;
			for (String command : TOPOLOGY_COMMANDS) {
				total += cluster.commandCalls(node, command);
			}
			queries.put(node, total);
		}
		return queries;
	}

	private static String key(int i) {
		return "fleet:" + i;
	}

	private static String value(int i) {
		return "value-" + i;
	}

	/** One application: its context and its load thread. */
	private static final class Instance implements AutoCloseable {

		private final int id;

		private final ConfigurableApplicationContext context;

		private final StringRedisTemplate template;

		private final AtomicLong calls = new AtomicLong();

		private final AtomicLong failures = new AtomicLong();

		private final AtomicLong wrong = new AtomicLong();

		private volatile long killAt = Long.MAX_VALUE;

		/** Time of the last failed call since the kill, or 0. */
		private volatile long lastFailureAfterKill;

		private volatile long lastSuccess;

		/** The keys of the master to be killed, set before the kill. */
		private volatile boolean[] watchedKeys = new boolean[0];

		/**
		 * End times of the successful calls since the kill that read a watched key (a few
		 * dozen per instance).
		 */
		private final List<Long> watchedSuccesses = Collections.synchronizedList(new ArrayList<>());

		private volatile boolean running;

		private Thread load;

		Instance(int id, String variant, RedisTestCluster cluster) {
			this.id = id;
			// A variant ending in "-min-idle-0" sets the pool's min-idle to 0 (no pooled
			// connections kept open).
			boolean noIdle = variant.endsWith("-min-idle-0");
			String client = variant.contains("jedis") ? "jedis" : "lettuce";
			this.context = new SpringApplicationBuilder(MultiGetTarget.Application.class).web(WebApplicationType.NONE)
				.logStartupInfo(false)
				.properties("spring.data.redis.client-type=" + client,
						"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "spring.data.redis.timeout=2s",
						"slotwise.enabled=" + variant.startsWith("slotwise"), "slotwise.multikey.timeout=2s",
						"spring.main.banner-mode=off", "spring.application.name=fleet-" + id)
				.properties(
						noIdle ? new String[] { "spring.data.redis." + client + ".pool.min-idle=0" } : new String[0])
				.properties(variant.contains("-sources-") ? new String[] {
						"slotwise.topology.refresh-sources=" + variant.replaceFirst("^.*-sources-(\\d+).*$", "$1") }
						: new String[0])
				.run();
			this.template = this.context.getBean(StringRedisTemplate.class);
		}

		void startLoad() {
			this.running = true;
			this.load = new Thread(this::loop, "fleet-load-" + this.id);
			this.load.setDaemon(true);
			this.load.start();
		}

		private void loop() {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			// Spread the instances' calls over the period.
			sleep(random.nextLong(PERIOD.toMillis()));
			while (this.running) {
				List<String> keys = new ArrayList<>(KEYS_PER_CALL);
				List<String> expected = new ArrayList<>(KEYS_PER_CALL);
				boolean[] watched = this.watchedKeys;
				boolean watchedKey = false;
				for (int k = 0; k < KEYS_PER_CALL; k++) {
					int i = random.nextInt(KEYSPACE);
					watchedKey |= i < watched.length && watched[i];
					keys.add(key(i));
					expected.add(value(i));
				}
				long started = System.nanoTime();
				boolean ok;
				try {
					List<String> values = this.template.opsForValue().multiGet(keys);
					ok = expected.equals(values);
					if (!ok) {
						this.wrong.incrementAndGet();
					}
				}
				catch (RuntimeException ex) {
					ok = false;
				}
				this.calls.incrementAndGet();
				long now = System.nanoTime();
				if (ok) {
					this.lastSuccess = now;
					if (watchedKey && now >= this.killAt) {
						this.watchedSuccesses.add(now);
					}
				}
				else {
					this.failures.incrementAndGet();
					if (started >= this.killAt || now >= this.killAt) {
						this.lastFailureAfterKill = now;
					}
				}
				sleep(Math.max(0, PERIOD.toMillis() - (now - started) / 1_000_000));
			}
		}

		void markKill(long at) {
			this.killAt = at;
		}

		void watchKeys(boolean[] keys) {
			this.watchedKeys = keys;
		}

		/**
		 * Seconds from the promotion to the end of the first successful call that read a
		 * key of the killed master's slots and ended after it; infinity when none did.
		 */
		double routedSeconds(long promotedAt) {
			synchronized (this.watchedSuccesses) {
				return this.watchedSuccesses.stream()
					.filter((end) -> end >= promotedAt)
					.findFirst()
					.map((end) -> (end - promotedAt) / 1e9)
					.orElse(Double.POSITIVE_INFINITY);
			}
		}

		/**
		 * Seconds from the kill to recovery: to the end of the last failed call, when a
		 * successful call followed it; 0 when no call failed; infinity when the instance
		 * never recovered.
		 */
		double recoverySeconds() {
			long failure = this.lastFailureAfterKill;
			if (failure == 0) {
				return 0;
			}
			if (this.lastSuccess <= failure) {
				return Double.POSITIVE_INFINITY;
			}
			return (failure - this.killAt) / 1e9;
		}

		void stopLoad() {
			this.running = false;
			if (this.load != null) {
				try {
					this.load.join(5_000);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}

		@Override
		public void close() {
			stopLoad();
			this.context.close();
		}

		private static void sleep(long millis) {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

	/** One variant's figures. */
	private record Result(String variant, int instances, Map<RedisNode, Long> steadyQueries, double steadySeconds,
			double connectionsPerInstance, Map<RedisNode, Long> outageQueries, double outageSeconds,
			double[] recoverySeconds, double promotionSeconds, double[] routedSeconds, long calls, long failedCalls,
			long wrongValues) {

		static final String CSV_HEADER = "variant,instances,steady_queries,steady_seconds,steady_per_instance_per_s,"
				+ "connections_per_instance,outage_queries,outage_seconds,outage_per_instance_per_s,"
				+ "largest_node_share,recovery_median_s,recovery_max_s,not_recovered,calls,failed_calls,wrong_calls,"
				+ "outage_queries_per_node,promotion_s,recovery_from_promotion_median_s,recovery_from_promotion_max_s,"
				+ "routed_after_promotion_median_s,routed_after_promotion_max_s,routed_within_1s";

		static final String TABLE_HEADER = "| variant | steady: topology queries / instance / s | server connections "
				+ "/ instance | outage (30 s from the kill): queries / instance / s | largest node's share | recovery "
				+ "median / max (s) | from the promotion: median / max (s) | promotion to first success on its slots: "
				+ "median / max (s), within 1 s | failed calls | wrong values |\n"
				+ "|---|---|---|---|---|---|---|---|---|---|";

		private static long total(Map<RedisNode, Long> queries) {
			return queries.values().stream().mapToLong(Long::longValue).sum();
		}

		double steadyRate() {
			return total(this.steadyQueries) / this.steadySeconds / this.instances;
		}

		double outageRate() {
			return total(this.outageQueries) / this.outageSeconds / this.instances;
		}

		double largestShare() {
			long total = total(this.outageQueries);
			return (total == 0) ? 0
					: this.outageQueries.values().stream().mapToLong(Long::longValue).max().orElse(0) / (double) total;
		}

		double medianRecovery() {
			return this.recoverySeconds[this.recoverySeconds.length / 2];
		}

		double maxRecovery() {
			return this.recoverySeconds[this.recoverySeconds.length - 1];
		}

		/**
		 * Recovery counted from the promotion; 0 for an instance that never failed or
		 * recovered before it.
		 */
		double fromPromotion(double recovery) {
			return Math.max(0, recovery - this.promotionSeconds);
		}

		double medianRouted() {
			return this.routedSeconds[this.routedSeconds.length / 2];
		}

		double maxRouted() {
			return this.routedSeconds[this.routedSeconds.length - 1];
		}

		long routedWithinOneSecond() {
			return Arrays.stream(this.routedSeconds).filter((seconds) -> seconds <= 1.0).count();
		}

		long notRecovered() {
			return Arrays.stream(this.recoverySeconds).filter(Double::isInfinite).count();
		}

		String perNode(Map<RedisNode, Long> queries) {
			return queries.entrySet().stream().map((e) -> e.getKey().port() + "=" + e.getValue()).toList().toString();
		}

		String describe() {
			return String.format(Locale.ROOT,
					"%s: steady %d queries in %.1f s %s; outage %d queries in %.1f s %s; "
							+ "promoted %.2f s after the kill; recovery %s s; %d calls, %d failed, %d wrong",
					this.variant, total(this.steadyQueries), this.steadySeconds, perNode(this.steadyQueries),
					total(this.outageQueries), this.outageSeconds, perNode(this.outageQueries), this.promotionSeconds,
					Arrays.toString(this.recoverySeconds), this.calls, this.failedCalls, this.wrongValues);
		}

		String row() {
			return String.format(Locale.ROOT,
					"| %s | %.3f | %.1f | %.3f | %.0f%% | %.1f / %s | %.2f / %s | %.2f / %.2f, %d of %d | %d of %d | %d |",
					this.variant, steadyRate(), this.connectionsPerInstance, outageRate(), largestShare() * 100,
					medianRecovery(),
					(notRecovered() > 0)
							? notRecovered() + " never" : String.format(Locale.ROOT, "%.1f", maxRecovery()),
					fromPromotion(medianRecovery()),
					(notRecovered() > 0) ? notRecovered() + " never"
							: String.format(Locale.ROOT, "%.2f", fromPromotion(maxRecovery())),
					medianRouted(), maxRouted(), routedWithinOneSecond(), this.instances, this.failedCalls, this.calls,
					this.wrongValues);
		}

		String csv() {
			return String.format(Locale.ROOT,
					"%s,%d,%d,%.1f,%.4f,%.2f,%d,%.1f,%.4f,%.3f,%.2f,%.2f,%d,%d,%d,%d,\"%s\",%.2f,%.2f,%.2f,%.2f,%.2f,%d",
					this.variant, this.instances, total(this.steadyQueries), this.steadySeconds, steadyRate(),
					this.connectionsPerInstance, total(this.outageQueries), this.outageSeconds, outageRate(),
					largestShare(), medianRecovery(), maxRecovery(), notRecovered(), this.calls, this.failedCalls,
					this.wrongValues, perNode(this.outageQueries), this.promotionSeconds,
					fromPromotion(medianRecovery()), fromPromotion(maxRecovery()), medianRouted(), maxRouted(),
					routedWithinOneSecond());
		}

	}

}
