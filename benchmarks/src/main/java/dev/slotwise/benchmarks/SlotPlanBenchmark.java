package dev.slotwise.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import dev.slotwise.internal.routing.SlotGroup;
import dev.slotwise.internal.routing.SlotHash;
import dev.slotwise.internal.routing.SlotPlan;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The planner alone, no Redis: grouping the keys of one call by slot
 * ({@link SlotPlan#of}), against the comparison sort it replaced (issue 19), kept here as
 * the baseline. Both hash every key; the difference is the grouping.
 * <p>
 * On a loaded machine the JMH times measure the load; {@link #main} measures the calling
 * thread's CPU time per call instead (a descheduled thread uses none), the two planners
 * alternating round by round:
 * {@code java -cp benchmarks.jar dev.slotwise.benchmarks.SlotPlanBenchmark [rounds]}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx512m")
public class SlotPlanBenchmark {

	/** Keys per call. */
	@Param({ "10", "100", "1000", "10000" })
	public int keys;

	/**
	 * The planner: {@code sort} (before issue 19, the baseline) or {@code radix}
	 * ({@link SlotPlan#of}).
	 */
	@Param({ "sort", "radix" })
	public String planner;

	private byte[][][] keySets;

	private int next;

	/** Prepares 16 sets of random keys in the multi-get benchmarks' shape. */
	@Setup
	public void setUp() {
		Random random = new Random(42);
		this.keySets = new byte[16][this.keys][];
		for (byte[][] set : this.keySets) {
			for (int i = 0; i < this.keys; i++) {
				set[i] = ("bench:" + random.nextInt(MultiGetTarget.KEYSPACE)).getBytes(StandardCharsets.UTF_8);
			}
		}
	}

	/**
	 * Plans one call.
	 * @return the groups, consumed by JMH
	 */
	@Benchmark
	public List<SlotGroup> plan() {
		byte[][] set = this.keySets[this.next++ & 15];
		return this.planner.equals("sort") ? sortedPlan(set) : SlotPlan.of(set).groups();
	}

	/**
	 * CPU time per call of both planners at 10 to 10,000 keys: rounds alternate which
	 * planner runs first, and the median round is printed with the range and the ratio
	 * radix / sort.
	 * @param args the number of rounds (default 15)
	 */
	public static void main(String[] args) {
		int rounds = (args.length > 0) ? Integer.parseInt(args[0]) : 15;
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		System.out.printf(Locale.ROOT, "CPU time per plan (calling thread), median of %d rounds (min-max)%n%n", rounds);
		System.out.println("| keys | sort µs | radix µs | radix ÷ sort (min-max over rounds) |");
		System.out.println("|---|---|---|---|");
		for (int keys : new int[] { 10, 100, 1000, 10000 }) {
			SlotPlanBenchmark sort = new SlotPlanBenchmark();
			sort.keys = keys;
			sort.planner = "sort";
			sort.setUp();
			SlotPlanBenchmark radix = new SlotPlanBenchmark();
			radix.keys = keys;
			radix.planner = "radix";
			radix.setUp();
			int calls = Math.max(200, 2_000_000 / keys);
			long sink = 0;
			for (int warm = 0; warm < 5; warm++) {
				sink += run(sort, calls) + run(radix, calls);
			}
			double[] sortTimes = new double[rounds];
			double[] radixTimes = new double[rounds];
			double[] ratios = new double[rounds];
			for (int round = 0; round < rounds; round++) {
				boolean sortFirst = (round % 2) == 0;
				for (int turn = 0; turn < 2; turn++) {
					SlotPlanBenchmark planner = ((turn == 0) == sortFirst) ? sort : radix;
					long before = threads.getCurrentThreadCpuTime();
					sink += run(planner, calls);
					double perCall = (threads.getCurrentThreadCpuTime() - before) / 1e3 / calls;
					((planner == sort) ? sortTimes : radixTimes)[round] = perCall;
				}
				ratios[round] = radixTimes[round] / sortTimes[round];
			}
			System.out.printf(Locale.ROOT, "| %,d | %.2f | %.2f | %.2f (%.2f-%.2f) |%n", keys, median(sortTimes),
					median(radixTimes), median(ratios), Arrays.stream(ratios).min().orElseThrow(),
					Arrays.stream(ratios).max().orElseThrow());
			if (sink == 42) {
				System.out.println();
			}
		}
	}

	private static long run(SlotPlanBenchmark planner, int calls) {
		long groups = 0;
		for (int i = 0; i < calls; i++) {
			groups += planner.plan().size();
		}
		return groups;
	}

	private static double median(double[] values) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		return sorted[sorted.length / 2];
	}

	/**
	 * The planner before issue 19: sort (slot, position) pairs, then cut runs of one
	 * slot.
	 */
	static List<SlotGroup> sortedPlan(byte[][] keys) {
		long[] packed = new long[keys.length];
		for (int i = 0; i < keys.length; i++) {
			packed[i] = ((long) SlotHash.slot(keys[i]) << 32) | i;
		}
		Arrays.sort(packed);
		List<SlotGroup> groups = new ArrayList<>();
		int from = 0;
		while (from < packed.length) {
			int slot = (int) (packed[from] >>> 32);
			int to = from + 1;
			while (to < packed.length && (int) (packed[to] >>> 32) == slot) {
				to++;
			}
			int[] positions = new int[to - from];
			for (int i = from; i < to; i++) {
				positions[i - from] = (int) packed[i];
			}
			groups.add(new SlotGroup(slot, positions));
			from = to;
		}
		return List.copyOf(groups);
	}

}
