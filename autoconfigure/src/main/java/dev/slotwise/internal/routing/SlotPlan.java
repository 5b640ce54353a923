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
		// Sorting (slot, position) pairs costs O(n log n) but allocates only O(n); a 16384-entry table per call
		// would cost more for the small calls that dominate.
		long[] packed = new long[keys.length];
		for (int i = 0; i < keys.length; i++) {
			if (keys[i] == null) {
				throw new IllegalArgumentException("'keys' must not contain null elements, found one at index " + i);
			}
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
		return new SlotPlan(groups);
	}

}
