package dev.slotwise.internal.routing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The keys of one multi-key call grouped by hash slot.
 *
 * @param groups one group per distinct slot, in ascending slot order
 */
public record SlotPlan(List<SlotGroup> groups) {

	/**
	 * Slots have 14 bits: two stable counting passes of 7 bits each order them, with 128
	 * counters per pass.
	 */
	private static final int DIGIT_BITS = 7;

	private static final int DIGIT_MASK = (1 << DIGIT_BITS) - 1;

	/**
	 * Up to this many keys a comparison sort is cheaper than the counting passes
	 * (measured: SlotPlanBenchmark).
	 */
	private static final int SMALL_CALL = 40;

	/**
	 * Copies the group list.
	 * @param groups the groups
	 */
	public SlotPlan {
		groups = List.copyOf(groups);
	}

	/**
	 * Plans keys by slot.
	 * @param keys the keys in the caller's order
	 * @return the plan
	 * @throws IllegalArgumentException if {@code keys} or one of its elements is null
	 */
	public static SlotPlan of(byte[][] keys) {
		if (keys == null) {
			throw new IllegalArgumentException("'keys' must not be null");
		}
		int count = keys.length;
		int[] slots = new int[count];
		for (int i = 0; i < count; i++) {
			if (keys[i] == null) {
				throw new IllegalArgumentException("'keys' must not contain null elements, found one at index " + i);
			}
			slots[i] = SlotHash.slot(keys[i]);
		}
		int[] order = (count <= SMALL_CALL) ? sortedByComparison(slots) : sortedByRadix(slots);
		int distinct = 0;
		int previous = -1;
		for (int position : order) {
			if (slots[position] != previous) {
				distinct++;
				previous = slots[position];
			}
		}
		List<SlotGroup> groups = new ArrayList<>(distinct);
		int from = 0;
		while (from < count) {
			int slot = slots[order[from]];
			int to = from + 1;
			while (to < count && slots[order[to]] == slot) {
				to++;
			}
			int[] positions = new int[to - from];
			System.arraycopy(order, from, positions, 0, positions.length);
			groups.add(new SlotGroup(slot, positions));
			from = to;
		}
		return new SlotPlan(groups);
	}

	/**
	 * Positions ordered by slot, then position, for a small call: sorting packed (slot,
	 * position) pairs is an insertion sort at this size, cheaper than two counting passes
	 * over their counter tables.
	 */
	private static int[] sortedByComparison(int[] slots) {
		long[] packed = new long[slots.length];
		for (int i = 0; i < slots.length; i++) {
			packed[i] = ((long) slots[i] << 32) | i;
		}
		Arrays.sort(packed);
		int[] order = new int[slots.length];
		for (int i = 0; i < order.length; i++) {
			order[i] = (int) packed[i];
		}
		return order;
	}

	/**
	 * Positions ordered by slot, then position: a least-significant-digit radix sort,
	 * linear in the keys, with two small counter tables instead of a comparison sort (O(n
	 * log n)) or one 16384-entry table per call (a fixed cost that small calls would
	 * pay). Both passes are stable, so positions stay ascending within a slot.
	 */
	private static int[] sortedByRadix(int[] slots) {
		int count = slots.length;
		int[] offsets = new int[DIGIT_MASK + 2];
		for (int slot : slots) {
			offsets[(slot & DIGIT_MASK) + 1]++;
		}
		prefixSums(offsets);
		int[] byLowDigit = new int[count];
		for (int i = 0; i < count; i++) {
			byLowDigit[offsets[slots[i] & DIGIT_MASK]++] = i;
		}
		Arrays.fill(offsets, 0);
		for (int slot : slots) {
			offsets[(slot >>> DIGIT_BITS) + 1]++;
		}
		prefixSums(offsets);
		int[] order = new int[count];
		for (int position : byLowDigit) {
			order[offsets[slots[position] >>> DIGIT_BITS]++] = position;
		}
		return order;
	}

	private static void prefixSums(int[] offsets) {
		for (int i = 1; i < offsets.length; i++) {
			offsets[i] += offsets[i - 1];
		}
	}

}
