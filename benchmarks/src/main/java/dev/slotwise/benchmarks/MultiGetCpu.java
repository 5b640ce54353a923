package dev.slotwise.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.slotwise.test.cluster.RedisNode;
import redis.clients.jedis.Jedis;

/**
 * CPU time per {@code multiGet}: how much processor a call costs the application and the
 * servers, which latency and throughput on a shared machine hide. Each system under test
 * runs the same fixed number of calls; the JVM's process CPU time (every thread: callers,
 * I/O threads, executor, GC, JIT) and the servers' {@code used_cpu_user +
 * used_cpu_sys} ({@code INFO cpu}, summed over the target's own cluster) and their socket
 * reads ({@code total_reads_processed}, how many pieces a batch reached the server in)
 * are read before and after. Rounds rotate the order of the systems so that none always
 * runs first, and the median round is reported with the spread.
 * <p>
 * CPU time is far less sensitive to other load on the machine than elapsed time (a
 * descheduled thread uses none), though caches and frequency still move it: compare
 * ratios within one run. <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.slotwise.benchmarks.MultiGetCpu [keys] [calls] [rounds] [targets...]
 * </pre>
 */
public final class MultiGetCpu {

	private static final List<String> DEFAULT_TARGETS = List.of("slotwise-jedis", "slotwise-lettuce", "sdr-lettuce");

	private MultiGetCpu() {
	}

	public static void main(String[] args) {
		int keys = (args.length > 0) ? Integer.parseInt(args[0]) : 1000;
		int calls = (args.length > 1) ? Integer.parseInt(args[1]) : 1000;
		int rounds = (args.length > 2) ? Integer.parseInt(args[2]) : 5;
		List<String> targets = (args.length > 3) ? List.of(Arrays.copyOfRange(args, 3, args.length)) : DEFAULT_TARGETS;
		com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
			.getOperatingSystemMXBean();
		Map<String, MultiGetTarget> systems = new LinkedHashMap<>();
		Map<String, double[]> clientPerCall = new LinkedHashMap<>();
		Map<String, double[]> serverPerCall = new LinkedHashMap<>();
		Map<String, double[]> readsPerCall = new LinkedHashMap<>();
		try {
			for (String target : targets) {
				MultiGetTarget system = new MultiGetTarget(target, keys);
				systems.put(target, system);
				// Warm-up: JIT, pools, connections; not measured.
				run(system, Math.max(calls, 500));
				clientPerCall.put(target, new double[rounds]);
				serverPerCall.put(target, new double[rounds]);
				readsPerCall.put(target, new double[rounds]);
			}
			for (int round = 0; round < rounds; round++) {
				for (int i = 0; i < targets.size(); i++) {
					String target = targets.get((round + i) % targets.size());
					MultiGetTarget system = systems.get(target);
					double serverBefore = serverInfo(system, "cpu", "used_cpu_user:", "used_cpu_sys:");
					double readsBefore = serverInfo(system, "stats", "total_reads_processed:");
					long before = os.getProcessCpuTime();
					run(system, calls);
					long after = os.getProcessCpuTime();
					double serverAfter = serverInfo(system, "cpu", "used_cpu_user:", "used_cpu_sys:");
					double readsAfter = serverInfo(system, "stats", "total_reads_processed:");
					readsPerCall.get(target)[round] = (readsAfter - readsBefore) / calls;
					clientPerCall.get(target)[round] = (after - before) / 1e3 / calls;
					serverPerCall.get(target)[round] = (serverAfter - serverBefore) * 1e6 / calls;
				}
				System.out.printf(Locale.ROOT, "round %d of %d done%n", round + 1, rounds);
			}
		}
		finally {
			systems.values().forEach(MultiGetTarget::close);
		}
		String baseline = targets.get(targets.size() - 1);
		double baselineClient = median(clientPerCall.get(baseline));
		System.out.printf(Locale.ROOT,
				"%nCPU per multiGet(%d) of random cross-slot keys, %d calls per round, median of %d rounds (min-max)%n%n",
				keys, calls, rounds);
		System.out.println("| system | application CPU µs per call | per key | ÷ " + baseline
				+ " | servers' CPU µs per call | socket reads per call, all servers |");
		System.out.println("|---|---|---|---|---|---|");
		for (String target : targets) {
			double[] client = clientPerCall.get(target);
			double[] server = serverPerCall.get(target);
			System.out.printf(Locale.ROOT, "| %s | %.0f (%.0f-%.0f) | %.2f | %.2f× | %.0f (%.0f-%.0f) | %.1f |%n",
					target, median(client), min(client), max(client), median(client) / keys,
					median(client) / baselineClient, median(server), min(server), max(server),
					median(readsPerCall.get(target)));
		}
	}

	private static void run(MultiGetTarget system, int calls) {
		for (int i = 0; i < calls; i++) {
			List<String> values = system.multiGet(system.nextKeys());
			if (values.isEmpty()) {
				throw new IllegalStateException("No values");
			}
		}
	}

	/**
	 * Sums {@code INFO} fields over every node of the target's own cluster (the admin
	 * connection's own reads are counted too: a few per node, the same for every target).
	 */
	private static double serverInfo(MultiGetTarget system, String section, String... fields) {
		double total = 0;
		for (RedisNode node : system.cluster().nodes()) {
			String info = system.cluster().withAdmin(node, (Jedis jedis) -> jedis.info(section));
			for (String line : info.lines().toList()) {
				for (String field : fields) {
					if (line.startsWith(field)) {
						total += Double.parseDouble(line.substring(field.length()).trim());
					}
				}
			}
		}
		return total;
	}

	private static double median(double[] values) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		int middle = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	}

	private static double min(double[] values) {
		return Arrays.stream(values).min().orElse(Double.NaN);
	}

	private static double max(double[] values) {
		return Arrays.stream(values).max().orElse(Double.NaN);
	}

}
