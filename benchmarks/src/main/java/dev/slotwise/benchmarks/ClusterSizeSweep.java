package dev.slotwise.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.slotwise.benchmarks.gate.Charts;
import dev.slotwise.benchmarks.gate.Row;
import dev.slotwise.test.cluster.ClusterShape;

/**
 * The cluster-size sweep interleaved (issue 19), for a machine whose load drifts:
 * {@link ClusterSizeBenchmark} runs one JMH trial after another, so a trial that meets a
 * busier minute looks slower; here, per size, every system under test runs at once (each
 * on its own cluster of that size) and they take turns in short rounds (the order
 * rotating), so load drift reaches all of them alike. Per target: the median and 99th
 * percentile of every call's latency, the latency ratio to the ideal as the median of the
 * rounds' ratios (with their range), and the JVM's CPU time per call; every value is
 * checked. <pre>
 * java [-Dslotwise.sweep.targets=slotwise-jedis,slotwise-lettuce] -cp benchmarks.jar \
 *     dev.slotwise.benchmarks.ClusterSizeSweep [rounds] [calls per round] [masters...]
 * </pre> Writes {@code cluster-size-sweep.csv}, {@code cluster-size-sweep.md} and
 * {@code cluster-size-sweep.png} to {@code -Dslotwise.results}.
 */
public final class ClusterSizeSweep {

	/**
	 * The targets; {@code -Dslotwise.sweep.targets=slotwise-jedis,...} runs fewer (the
	 * ideal always runs).
	 */
	private static final List<String> TARGETS = targets(
			System.getProperty("slotwise.sweep.targets", "slotwise-jedis,slotwise-lettuce,sdr-lettuce"));

	private static final int KEYS = 1000;

	private ClusterSizeSweep() {
	}

	public static void main(String[] args) throws IOException {
		int rounds = (args.length > 0) ? Integer.parseInt(args[0]) : 9;
		int calls = (args.length > 1) ? Integer.parseInt(args[1]) : 60;
		int[] sizes = (args.length > 2) ? Arrays.stream(args, 2, args.length).mapToInt(Integer::parseInt).toArray()
				: new int[] { 3, 6, 12, 24 };
		com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
			.getOperatingSystemMXBean();
		StringBuilder md = new StringBuilder();
		md.append(String.format(Locale.ROOT,
				"multiGet of %d random cross-slot keys, one caller; per size %d rounds of "
						+ "%d calls per target, targets taking turns (order rotating each round)%n%n",
				KEYS, rounds, calls));
		md.append("| masters | target | p50 µs | p99 µs | p50 ÷ ideal, median of rounds (min-max) | application CPU "
				+ "µs per call | CPU ÷ ideal, median of rounds (min-max) | JVM context switches per call | values "
				+ "checked / wrong |\n|---|---|---|---|---|---|---|---|---|\n");
		List<Row> chartRows = new ArrayList<>();
		for (int masters : sizes) {
			Map<String, MultiGetTarget> systems = new LinkedHashMap<>();
			Map<String, long[]> latencies = new LinkedHashMap<>();
			Map<String, double[]> roundMedians = new LinkedHashMap<>();
			Map<String, double[]> cpu = new LinkedHashMap<>();
			Map<String, long[]> wrong = new LinkedHashMap<>();
			Map<String, double[]> switches = new LinkedHashMap<>();
			try {
				for (String target : TARGETS) {
					System.out.printf(Locale.ROOT, "%d masters: starting %s%n", masters, target);
					MultiGetTarget system = new MultiGetTarget(target, KEYS, new ClusterShape(masters, 0));
					systems.put(target, system);
					latencies.put(target, new long[rounds * calls]);
					roundMedians.put(target, new double[rounds]);
					cpu.put(target, new double[rounds]);
					switches.put(target, new double[rounds]);
					wrong.put(target, new long[2]);
				}
				for (MultiGetTarget system : systems.values()) {
					for (int i = 0; i < 300; i++) {
						system.multiGet(system.nextKeys());
					}
				}
				for (int round = 0; round < rounds; round++) {
					for (int t = 0; t < TARGETS.size(); t++) {
						String target = TARGETS.get((round + t) % TARGETS.size());
						MultiGetTarget system = systems.get(target);
						long[] all = latencies.get(target);
						long[] mine = new long[calls];
						long switchesBefore = contextSwitches();
						long cpuBefore = processCpuNanos(os);
						for (int c = 0; c < calls; c++) {
							List<String> keys = system.nextKeys();
							long start = System.nanoTime();
							List<String> values = system.multiGet(keys);
							mine[c] = System.nanoTime() - start;
							check(keys, values, wrong.get(target));
						}
						cpu.get(target)[round] = (processCpuNanos(os) - cpuBefore) / 1e3 / calls;
						switches.get(target)[round] = (contextSwitches() - switchesBefore) / (double) calls;
						System.arraycopy(mine, 0, all, round * calls, calls);
						Arrays.sort(mine);
						roundMedians.get(target)[round] = mine[calls / 2] / 1e3;
					}
				}
			}
			finally {
				systems.values().forEach(MultiGetTarget::close);
			}
			double idealCpu = median(cpu.get("ideal"));
			for (String target : TARGETS) {
				long[] all = latencies.get(target).clone();
				Arrays.sort(all);
				double p50 = all[all.length / 2] / 1e3;
				double p99 = all[(int) Math.min(all.length - 1, Math.ceil(all.length * 0.99) - 1)] / 1e3;
				double[] ratios = new double[rounds];
				for (int r = 0; r < rounds; r++) {
					ratios[r] = roundMedians.get(target)[r] / roundMedians.get("ideal")[r];
				}
				double cpuPerCall = median(cpu.get(target));
				double[] cpuRatios = new double[rounds];
				for (int r = 0; r < rounds; r++) {
					cpuRatios[r] = cpu.get(target)[r] / cpu.get("ideal")[r];
				}
				double switchesPerCall = median(switches.get(target));
				String line = String.format(Locale.ROOT,
						"| %d | %s | %,.0f | %,.0f | %.2f× (%.2f-%.2f) | %,.0f | %.2f× (%.2f-%.2f) | %.1f | %d / %d |",
						masters, target, p50, p99, median(ratios), min(ratios), max(ratios), cpuPerCall,
						median(cpuRatios), min(cpuRatios), max(cpuRatios), switchesPerCall, wrong.get(target)[0],
						wrong.get(target)[1]);
				System.out.println(line);
				md.append(line).append('\n');
				ClusterSizeBenchmark.append("cluster-size-sweep.csv",
						"masters,target,p50_us,p99_us,ratio_median,ratio_min,ratio_max,app_cpu_us_per_call,"
								+ "cpu_ratio_median,cpu_ratio_min,cpu_ratio_max,context_switches_per_call,checked,wrong",
						String.format(Locale.ROOT, "%d,%s,%.1f,%.1f,%.3f,%.3f,%.3f,%.1f,%.3f,%.3f,%.3f,%.2f,%d,%d",
								masters, target, p50, p99, median(ratios), min(ratios), max(ratios), cpuPerCall,
								median(cpuRatios), min(cpuRatios), max(cpuRatios), switchesPerCall,
								wrong.get(target)[0], wrong.get(target)[1]));
				List<Double> perRound = Arrays.stream(roundMedians.get(target)).boxed().toList();
				chartRows.add(new Row("dev.slotwise.benchmarks.ClusterSizeSweep.multiGet", "sample",
						Map.of("masters", String.valueOf(masters), "target", target, "keys", String.valueOf(KEYS)), p50,
						Double.NaN, "us/op", perRound));
			}
		}
		Path folder = Path.of(System.getProperty("slotwise.results", "benchmarks/results"));
		java.nio.file.Files.writeString(folder.resolve("cluster-size-sweep.md"), md.toString());
		if (sizes.length > 1) {
			Charts.writeLatency(folder.resolve("cluster-size-sweep.png"), "cluster-size sweep (interleaved)", chartRows,
					"masters");
		}
		System.out.println();
		System.out.print(md);
	}

	/**
	 * CPU time of every live thread of this JVM in nanoseconds, from
	 * {@code /proc/self/task/<thread>/schedstat} (the scheduler's own count), falling
	 * back to the process CPU time: on some kernels that clock ticks only every 10 ms,
	 * too coarse for a round of a few hundred calls. Threads that ended during a round
	 * are not counted.
	 */
	private static long processCpuNanos(com.sun.management.OperatingSystemMXBean os) {
		Path tasks = Path.of("/proc/self/task");
		if (!java.nio.file.Files.isDirectory(tasks)) {
			return os.getProcessCpuTime();
		}
		long total = 0;
		try (java.util.stream.Stream<Path> threads = java.nio.file.Files.list(tasks)) {
			for (Path thread : threads.toList()) {
				try {
					String stat = java.nio.file.Files.readString(thread.resolve("schedstat")).strip();
					total += Long.parseLong(stat.substring(0, stat.indexOf(' ')));
				}
				catch (IOException | RuntimeException ex) {
					// The thread ended while being read.
				}
			}
		}
		catch (IOException ex) {
			return os.getProcessCpuTime();
		}
		return total;
	}

	/**
	 * Voluntary and involuntary context switches of every live thread of this JVM (Linux
	 * {@code /proc}); 0 where there is no {@code /proc}. A thread hand-off costs a switch
	 * on each side, which process CPU time alone hides.
	 */
	private static long contextSwitches() {
		Path tasks = Path.of("/proc/self/task");
		if (!java.nio.file.Files.isDirectory(tasks)) {
			return 0;
		}
		long total = 0;
		try (java.util.stream.Stream<Path> threads = java.nio.file.Files.list(tasks)) {
			for (Path thread : threads.toList()) {
				try {
					for (String line : java.nio.file.Files.readAllLines(thread.resolve("status"))) {
						if (line.startsWith("voluntary_ctxt_switches:")
								|| line.startsWith("nonvoluntary_ctxt_switches:")) {
							total += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
						}
					}
				}
				catch (IOException ex) {
					// The thread ended while being read.
				}
			}
		}
		catch (IOException ex) {
			return 0;
		}
		return total;
	}

	private static List<String> targets(String list) {
		List<String> targets = new ArrayList<>(List.of("ideal"));
		for (String target : list.split(",")) {
			if (!target.isBlank() && !targets.contains(target.strip())) {
				targets.add(target.strip());
			}
		}
		return List.copyOf(targets);
	}

	private static void check(List<String> keys, List<String> values, long[] counts) {
		for (int i = 0; i < keys.size(); i++) {
			counts[0]++;
			if (!MultiGetTarget.expectedValue(keys.get(i)).equals(values.get(i))) {
				counts[1]++;
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
