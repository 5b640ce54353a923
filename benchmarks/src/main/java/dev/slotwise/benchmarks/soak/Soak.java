package dev.slotwise.benchmarks.soak;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.function.LongSupplier;

import dev.slotwise.benchmarks.BenchmarkApplication;
import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The chaos soak's entry point: starts a local 3-master/3-replica cluster, one
 * application per client and mode (Slotwise on, and the control with
 * {@code slotwise.enabled=false}), runs their workers while seeded faults hit the
 * cluster, checks the end state and writes the report. Exits with 1 when an application
 * with Slotwise read a wrong value or did not recover from a fault, 2 on bad options.
 * <p>
 * Every application shares the cluster and so meets the same faults at the same moments:
 * the control's figures are plain Spring Boot's under exactly the storm Slotwise met.
 */
public final class Soak {

	private static final long QUIET_TAIL_NANOS = 25_000_000_000L;

	private Soak() {
	}

	/**
	 * Runs a soak.
	 * @param args see {@link SoakOptions#USAGE}
	 * @throws Exception when the run cannot start or its report cannot be written
	 */
	public static void main(String[] args) throws Exception {
		SoakOptions options;
		try {
			options = SoakOptions.parse(args);
		}
		catch (IllegalArgumentException ex) {
			System.err.println(ex.getMessage());
			System.err.println(SoakOptions.USAGE);
			System.exit(2);
			return;
		}
		int status = run(options);
		System.exit(status);
	}

	static int run(SoakOptions options) throws IOException {
		Files.createDirectories(options.out());
		long durationNanos = (long) (options.minutes() * 60e9);
		int seconds = (int) (durationNanos / 1_000_000_000L) + 240;
		List<Target> targets = new ArrayList<>();
		for (String client : options.clients()) {
			targets.add(new Target(client, true, seconds));
			if (options.control()) {
				targets.add(new Target(client, false, seconds));
			}
		}
		String load = loadAverage();
		System.out.printf("[soak] %s: %.1f min, seed %d, faults %s, %s; load %s%n", Instant.now(), options.minutes(),
				options.seed(), options.faults(), targets.stream().map((t) -> t.name).toList(), load);
		try (RedisTestCluster cluster = RedisTestCluster.startWithArguments(ClusterShape.DEFAULT,
				List.of("--enable-debug-command", "local"))) {
			for (Target target : targets) {
				start(target, cluster);
			}
			long t0 = System.nanoTime();
			LongSupplier clock = () -> System.nanoTime() - t0;
			FaultLog log = new FaultLog();
			List<Worker> workers = new ArrayList<>();
			List<Thread> threads = new ArrayList<>();
			for (Target target : targets) {
				for (int i = 0; i < options.workers(); i++) {
					Worker worker = new Worker(target, i, options.seed(), options.rate(), log, clock);
					workers.add(worker);
					Thread thread = new Thread(worker, "soak-" + target.name + "-" + i);
					thread.setDaemon(true);
					threads.add(thread);
				}
			}
			// The near cache's check: in each Slotwise application, a reader of the keys
			// of every application's first two workers (the others' writes reach its near
			// cache through the nodes' invalidations only).
			Map<String, NavigableMap<Long, long[]>> watched = new LinkedHashMap<>();
			workers.stream()
				.filter((worker) -> worker.index < 2)
				.forEach((worker) -> watched.putAll(worker.histories()));
			List<NearCacheReader> readers = new ArrayList<>();
			for (Target target : targets) {
				if (target.slotwise) {
					NearCacheReader reader = new NearCacheReader(target, watched, log, clock, options.seed());
					readers.add(reader);
					Thread thread = new Thread(reader, "soak-" + target.name + "-near-cache");
					thread.setDaemon(true);
					threads.add(thread);
				}
			}
			threads.forEach(Thread::start);
			// Warm up before the baseline of threads and connections.
			sleep(5_000);
			long threadsAtStart = ManagementFactory.getThreadMXBean().getThreadCount();
			for (Target target : targets) {
				target.connectionsAtStart = connections(cluster, target);
			}
			List<String> keys = workers.stream().flatMap((worker) -> worker.keys().stream()).toList();
			Faults faults = new Faults(cluster, options.faults(), targets, keys, log, clock, options.seed(),
					durationNanos - QUIET_TAIL_NANOS, options.minGap(), options.maxGap());
			Thread faultThread = new Thread(faults, "soak-faults");
			faultThread.setDaemon(true);
			faultThread.start();
			while (clock.getAsLong() < durationNanos) {
				sleep(1000);
				long second = clock.getAsLong() / 1_000_000_000L;
				if (second % 30 == 0) {
					StringBuilder line = new StringBuilder(String.format("[soak] %5ds", second));
					for (Target target : targets) {
						line.append(String.format(" | %s %d ops %d err %d wrong", target.name, target.operations.sum(),
								target.errorTimes().size(), target.invariants.wrong()));
					}
					System.out.println(line);
				}
			}
			faults.stop();
			join(faultThread, 120_000);
			long threadsAtEnd = ManagementFactory.getThreadMXBean().getThreadCount();
			for (Target target : targets) {
				target.connectionsAtEnd = connections(cluster, target);
			}
			workers.forEach(Worker::stop);
			readers.forEach(NearCacheReader::stop);
			threads.forEach((thread) -> join(thread, 30_000));
			long endNanos = clock.getAsLong();
			for (Worker worker : workers) {
				worker.finalCheck();
			}
			String loadEnd = loadAverage();
			SoakReport report = new SoakReport(options, targets, log, endNanos, threadsAtStart, threadsAtEnd, load,
					loadEnd);
			int status = report.write();
			for (Target target : targets) {
				if (target.context != null) {
					target.context.close();
				}
			}
			return status;
		}
	}

	private static void start(Target target, RedisTestCluster cluster) {
		List<String> properties = new ArrayList<>(Arrays.asList("spring.data.redis.client-type=" + target.client,
				"slotwise.enabled=" + target.slotwise, "spring.data.redis.client-name=" + target.clientName,
				"spring.data.redis.timeout=1s", "spring.data.redis.connect-timeout=1s",
				// What a production Lettuce application sets so that it follows a
				// failover at all; the same for both.
				"spring.data.redis.lettuce.cluster.refresh.adaptive=true",
				"spring.data.redis.lettuce.cluster.refresh.period=30s", "slotwise.multikey.timeout=2s"));
		if (target.slotwise) {
			// Every key the soak uses: the workers' own reads of their keys are served
			// from memory too.
			properties.addAll(List.of("slotwise.near-cache.enabled=true", "slotwise.near-cache.key-prefixes=soak:"));
		}
		target.context = BenchmarkApplication.start(cluster, properties.toArray(String[]::new));
		target.template = target.context.getBean(StringRedisTemplate.class);
		if (target.client.equals("lettuce")) {
			target.reactive = target.context.getBean(ReactiveStringRedisTemplate.class);
		}
	}

	private static long connections(RedisTestCluster cluster, Target target) {
		long count = 0;
		for (RedisNode node : cluster.nodes()) {
			try {
				count += cluster.countClients(node, target.clientName);
			}
			catch (RuntimeException ex) {
				// A node down at that moment has no connections to count.
			}
		}
		return count;
	}

	static String loadAverage() {
		try {
			String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
			return fields[0] + " " + fields[1] + " " + fields[2] + " (" + Runtime.getRuntime().availableProcessors()
					+ " cores)";
		}
		catch (IOException | RuntimeException ex) {
			return "unknown";
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void join(Thread thread, long millis) {
		try {
			thread.join(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
