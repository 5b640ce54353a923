package dev.slotwise.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
 * The planner alone, no Redis: grouping the keys of one call by slot ({@link SlotPlan#of}), against the comparison
 * sort it replaced (issue 19), kept here as the baseline. Both hash every key; the difference is the grouping.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx512m")
public class SlotPlanBenchmark {

	/** Keys per call. */
	@Param({ "10", "100", "1000", "10000" })
	public int keys;

	/** The planner: {@code sort} (before issue 19, the baseline) or {@code radix} ({@link SlotPlan#of}). */
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

	/** The planner before issue 19: sort (slot, position) pairs, then cut runs of one slot. */
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
