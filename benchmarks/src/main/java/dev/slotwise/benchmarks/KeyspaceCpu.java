package dev.slotwise.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import redis.clients.jedis.Jedis;

import org.springframework.cache.Cache;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Where the time of a cluster-wide scan or cache clear goes (the question behind
 * {@link KeyspaceBenchmark}'s ratios): for each system, the elapsed time, the
 * application's CPU time split by thread group (the caller, Lettuce's I/O threads, the
 * multi-key executor, GC and JIT), the servers' CPU time ({@code INFO cpu}) and their
 * commands ({@code INFO commandstats}: calls and microseconds per command). Every system
 * uses one shared cluster, in turn. <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.slotwise.benchmarks.KeyspaceCpu scan|clear [count] [rounds] [keys]
 * </pre>
 */
public final class KeyspaceCpu {

	private static final List<String> TARGETS = List.of("sdr-lettuce", "slotwise-lettuce", "slotwise-jedis");

	private KeyspaceCpu() {
	}

	public static void main(String[] args) {
		String what = (args.length > 0) ? args[0] : "scan";
		long count = (args.length > 1) ? Long.parseLong(args[1]) : 1000;
		int rounds = (args.length > 2) ? Integer.parseInt(args[2]) : 5;
		int keys = (args.length > 3) ? Integer.parseInt(args[3]) : 200_000;
		List<String> targets = (args.length > 4) ? List.of(args[4].split(",")) : TARGETS;
		boolean warm = !Boolean.getBoolean("cold");
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		try (RedisTestCluster cluster = RedisTestCluster.start(ClusterShape.DEFAULT)) {
			Map<String, ConfigurableApplicationContext> contexts = new LinkedHashMap<>();
			try {
				for (String target : targets) {
					String client = target.contains("jedis") ? "jedis" : "lettuce";
					contexts.put(target, BenchmarkApplication.start(cluster, "spring.data.redis.client-type=" + client,
							"slotwise.enabled=" + target.startsWith("slotwise"), "spring.data.redis.timeout=60s"));
				}
				fill(cluster, contexts.get(targets.get(0)), keys);
				for (int round = warm ? -1 : 0; round < rounds; round++) {
					for (String target : targets) {
						ConfigurableApplicationContext context = contexts.get(target);
						RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
						if (what.equals("clear")) {
							fill(cluster, context, keys);
						}
						resetStats(cluster);
						Map<String, Long> cpuBefore = threadCpu(threads);
						double serverBefore = serverCpu(cluster);
						long started = System.nanoTime();
						long result = what.equals("clear") ? clear(factory, count) : scan(factory, count);
						long elapsed = System.nanoTime() - started;
						double server = serverCpu(cluster) - serverBefore;
						Map<String, Long> cpu = minus(threadCpu(threads), cpuBefore);
						if (round < 0) {
							continue;
						}
						long total = cpu.values().stream().mapToLong(Long::longValue).sum();
						StringBuilder line = new StringBuilder();
						line.append(String.format(Locale.ROOT,
								"%-17s %s count=%d round %d: %7.1f ms elapsed, app CPU %7.1f ms, servers' CPU %7.1f ms, result %d%n",
								target, what, count, round, elapsed / 1e6, total / 1e6, server * 1e3, result));
						cpu.entrySet()
							.stream()
							.filter((e) -> e.getValue() > 2_000_000)
							.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
							.forEach((e) -> line.append(String.format(Locale.ROOT, "      %-40s %7.1f ms%n", e.getKey(),
									e.getValue() / 1e6)));
						line.append("      commands: ").append(commandStats(cluster)).append('\n');
						System.out.print(line);
					}
				}
			}
			finally {
				contexts.values().forEach(ConfigurableApplicationContext::close);
			}
		}
	}

	private static long scan(RedisConnectionFactory factory, long count) {
		StringRedisTemplate template = new StringRedisTemplate(factory);
		long found = 0;
		try (Cursor<String> cursor = template.scan(ScanOptions.scanOptions().match("bench::*").count(count).build())) {
			while (cursor.hasNext()) {
				cursor.next();
				found++;
			}
		}
		return found;
	}

	private static long clear(RedisConnectionFactory factory, long count) {
		RedisCacheManager manager = RedisCacheManager
			.builder(RedisCacheWriter.nonLockingRedisCacheWriter(factory,
					KeyspaceBenchmark.cacheClear(factory, (int) count)))
			.build();
		manager.afterPropertiesSet();
		Cache cache = manager.getCache("bench");
		return cache.invalidate() ? 1 : 0;
	}

	private static void fill(RedisTestCluster cluster, ConfigurableApplicationContext context, int keys) {
		try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class).getClusterConnection()) {
			Map<byte[], byte[]> batch = new LinkedHashMap<>();
			for (int i = 0; i < keys; i++) {
				batch.put(("bench::" + i).getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
				if (batch.size() == 1000) {
					connection.stringCommands().mSet(batch);
					batch.clear();
				}
			}
			if (!batch.isEmpty()) {
				connection.stringCommands().mSet(batch);
			}
		}
	}

	private static Map<String, Long> threadCpu(ThreadMXBean threads) {
		Map<String, Long> groups = new TreeMap<>();
		long[] ids = threads.getAllThreadIds();
		ThreadInfo[] infos = threads.getThreadInfo(ids);
		for (int i = 0; i < ids.length; i++) {
			if (infos[i] == null) {
				continue;
			}
			long cpu = threads.getThreadCpuTime(ids[i]);
			if (cpu < 0) {
				continue;
			}
			String group = infos[i].getThreadName().replaceAll("\\d+", "#");
			groups.merge(group, cpu, Long::sum);
		}
		// GC, JIT and other VM threads are not Java threads: the process total minus the
		// Java threads.
		long process = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
		groups.put("(VM: GC, JIT, ...)", process - groups.values().stream().mapToLong(Long::longValue).sum());
		return groups;
	}

	private static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
		Map<String, Long> diff = new TreeMap<>();
		after.forEach((k, v) -> diff.put(k, v - before.getOrDefault(k, 0L)));
		return diff;
	}

	private static double serverCpu(RedisTestCluster cluster) {
		double total = 0;
		for (RedisNode node : cluster.nodes()) {
			String info = cluster.withAdmin(node, (Jedis jedis) -> jedis.info("cpu"));
			for (String line : info.lines().toList()) {
				if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
					total += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
				}
			}
		}
		return total;
	}

	private static void resetStats(RedisTestCluster cluster) {
		for (RedisNode node : cluster.masters()) {
			cluster.withAdmin(node, (Jedis jedis) -> jedis.configResetStat());
		}
	}

	private static String commandStats(RedisTestCluster cluster) {
		Map<String, long[]> stats = new TreeMap<>();
		for (RedisNode node : cluster.masters()) {
			String info = cluster.withAdmin(node, (Jedis jedis) -> jedis.info("commandstats"));
			for (String line : info.lines().toList()) {
				if (!line.startsWith("cmdstat_")) {
					continue;
				}
				String name = line.substring(8, line.indexOf(':'));
				long calls = 0;
				long usec = 0;
				for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
					if (field.startsWith("calls=")) {
						calls = Long.parseLong(field.substring(6));
					}
					else if (field.startsWith("usec=")) {
						usec = Long.parseLong(field.substring(5));
					}
				}
				long[] total = stats.computeIfAbsent(name, (n) -> new long[2]);
				total[0] += calls;
				total[1] += usec;
			}
		}
		StringBuilder out = new StringBuilder();
		stats.forEach((name, v) -> {
			if (!name.equals("info") && !name.equals("config|resetstat")) {
				out.append(String.format(Locale.ROOT, "%s %d calls %.1f ms; ", name, v[0], v[1] / 1e3));
			}
		});
		return out.toString();
	}

	static double median(double[] values) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		return sorted[sorted.length / 2];
	}

}
