package dev.slotwise.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisTestCluster;

/**
 * Application CPU time per cross-slot {@code multiGet} through Slotwise with no
 * {@code ObservationRegistry}, a registry without handlers ({@code noop}) and a recording
 * one, over Jedis and Lettuce, and plain Spring Boot over Lettuce ({@code sdr-lettuce}:
 * what Lettuce's per-command observations cost without Slotwise): all nine run on one
 * cluster in this JVM, each round runs every one of them for the same number of calls in
 * a rotated order, and the process's CPU time (callers, I/O threads, executor, GC, JIT)
 * and the elapsed time are read around each. Reports the median round, the spread, and
 * the ratio to {@code none} of the same client with its range (min/max over max/min).
 * Interleaving the set-ups round by round exposes them to the same load on a shared
 * machine. <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.slotwise.benchmarks.ObservationCpu [keys] [calls] [rounds]
 * </pre>
 */
public final class ObservationCpu {

	private static final List<String> CLIENTS = List.of("jedis", "lettuce", "sdr-lettuce");

	private static final List<String> REGISTRIES = List.of("none", "noop", "recording");

	private ObservationCpu() {
	}

	public static void main(String[] args) {
		int keys = (args.length > 0) ? Integer.parseInt(args[0]) : 1000;
		int calls = (args.length > 1) ? Integer.parseInt(args[1]) : 500;
		int rounds = (args.length > 2) ? Integer.parseInt(args[2]) : 5;
		com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
			.getOperatingSystemMXBean();
		Map<String, ObservedTarget> targets = new LinkedHashMap<>();
		Map<String, double[]> perCall = new LinkedHashMap<>();
		Map<String, double[]> wallPerCall = new LinkedHashMap<>();
		try (RedisTestCluster cluster = RedisTestCluster.start(ClusterShape.DEFAULT)) {
			ObservedTarget.populate(cluster);
			try {
				for (String client : CLIENTS) {
					for (String registry : REGISTRIES) {
						String name = client + "/" + registry;
						ObservedTarget target = new ObservedTarget(cluster, client, registry, keys);
						targets.put(name, target);
						run(target, Math.max(calls, 500));
						perCall.put(name, new double[rounds]);
						wallPerCall.put(name, new double[rounds]);
					}
				}
				List<String> names = new ArrayList<>(targets.keySet());
				for (int round = 0; round < rounds; round++) {
					for (int i = 0; i < names.size(); i++) {
						String name = names.get((round + i) % names.size());
						long before = os.getProcessCpuTime();
						long started = System.nanoTime();
						run(targets.get(name), calls);
						wallPerCall.get(name)[round] = (System.nanoTime() - started) / 1e3 / calls;
						perCall.get(name)[round] = (os.getProcessCpuTime() - before) / 1e3 / calls;
					}
					System.out.printf(Locale.ROOT, "round %d of %d done%n", round + 1, rounds);
				}
				System.out.printf(Locale.ROOT,
						"%nApplication CPU per multiGet(%d) of random cross-slot keys through Slotwise, %d calls per "
								+ "round, median of %d rounds (min-max)%n%n",
						keys, calls, rounds);
				System.out
					.println("| client | registry | CPU µs per call | ÷ none (range) | elapsed µs per call | ÷ none "
							+ "(range) | observations per call |");
				System.out.println("|---|---|---|---|---|---|---|");
				for (String name : names) {
					String client = name.substring(0, name.indexOf('/'));
					double[] cpu = perCall.get(name);
					double[] none = perCall.get(client + "/none");
					double[] wall = wallPerCall.get(name);
					double[] wallNone = wallPerCall.get(client + "/none");
					Map<String, Long> observed = targets.get(name).observed();
					long total = (long) (calls * rounds) + Math.max(calls, 500) + 1;
					StringBuilder counts = new StringBuilder();
					observed.forEach((observation, count) -> counts.append((counts.length() > 0) ? ", " : "")
						.append(observation)
						.append(' ')
						.append(String.format(Locale.ROOT, "%.1f", (double) count / total)));
					System.out.printf(Locale.ROOT,
							"| %s | %s | %.0f (%.0f-%.0f) | %.2f× (%.2f-%.2f) | %.0f (%.0f-%.0f) | %.2f× (%.2f-%.2f) | %s |%n",
							client, name.substring(name.indexOf('/') + 1), median(cpu), min(cpu), max(cpu),
							median(cpu) / median(none), min(cpu) / max(none), max(cpu) / min(none), median(wall),
							min(wall), max(wall), median(wall) / median(wallNone), min(wall) / max(wallNone),
							max(wall) / min(wallNone), (counts.length() > 0) ? counts : "-");
				}
			}
			finally {
				targets.values().forEach(ObservedTarget::close);
			}
		}
	}

	private static void run(ObservedTarget target, int calls) {
		for (int i = 0; i < calls; i++) {
			if (target.multiGet().isEmpty()) {
				throw new IllegalStateException("No values");
			}
		}
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
