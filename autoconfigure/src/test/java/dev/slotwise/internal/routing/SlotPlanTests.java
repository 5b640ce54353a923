package dev.slotwise.internal.routing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Planning keys by slot and node, and chunking.
 */
class SlotPlanTests {

	@Test
	void groupsKeysBySlotKeepingPositionsAscending() {
		SlotPlan plan = SlotPlan.of(keys("{a}1", "b", "{a}2", "b", "{a}3"));
		assertThat(plan.groups()).hasSize(2);
		SlotGroup tagged = plan.groups().stream().filter((g) -> g.slot() == SlotHash.slot(key("a"))).findFirst().get();
		assertThat(tagged.positions()).containsExactly(0, 2, 4);
		SlotGroup plain = plan.groups().stream().filter((g) -> g.slot() == SlotHash.slot(key("b"))).findFirst().get();
		assertThat(plain.positions()).containsExactly(1, 3);
	}

	@Test
	void groupsComeInAscendingSlotOrder() {
		SlotPlan plan = SlotPlan.of(keys("z", "{a}", "y", "x", "{a}2", "w", "z"));
		int[] slots = plan.groups().stream().mapToInt(SlotGroup::slot).toArray();
		assertThat(slots).isSorted().doesNotHaveDuplicates();
		assertThat(plan.groups().stream().mapToInt(SlotGroup::size).sum()).isEqualTo(7);
	}

	@Test
	void noKeysMakeAnEmptyPlan() {
		assertThat(SlotPlan.of(new byte[0][]).groups()).isEmpty();
	}

	@Test
	void keysOfSlotsThatShareTheLowOrHighBitsStayApart() {
		// Slots 0, 128 and 16383 share digits of the two counting passes pairwise; each
		// must keep its own group.
		byte[][] keys = new byte[][] { keyOfSlot(16383), keyOfSlot(128), keyOfSlot(0), keyOfSlot(128), keyOfSlot(0) };
		SlotPlan plan = SlotPlan.of(keys);
		assertThat(plan.groups()).extracting(SlotGroup::slot).containsExactly(0, 128, 16383);
		assertThat(plan.groups().get(0).positions()).containsExactly(2, 4);
		assertThat(plan.groups().get(1).positions()).containsExactly(1, 3);
		assertThat(plan.groups().get(2).positions()).containsExactly(0);
	}

	@Test
	void largeCallsKeepSlotsThatShareADigitApart() {
		// Above the small-call size the counting passes run: slots 0, 128 and 16383 share
		// one 7-bit digit pairwise.
		int[] cycle = { 16383, 128, 0 };
		byte[][] keys = new byte[60][];
		for (int i = 0; i < keys.length; i++) {
			keys[i] = keyOfSlot(cycle[i % 3]);
		}
		SlotPlan plan = SlotPlan.of(keys);
		assertThat(plan.groups()).extracting(SlotGroup::slot).containsExactly(0, 128, 16383);
		for (int g = 0; g < 3; g++) {
			int first = 2 - g;
			assertThat(plan.groups().get(g).positions()).hasSize(20).isSorted();
			assertThat(Arrays.stream(plan.groups().get(g).positions())).allMatch((p) -> p % 3 == first);
		}
	}

	@Test
	void planMatchesAComparisonSortOfRandomKeys() {
		Random random = new Random(19);
		for (int size : new int[] { 1, 2, 7, 40, 41, 100, 1000, 20_000 }) {
			byte[][] keys = new byte[size][];
			for (int i = 0; i < size; i++) {
				// A small keyspace makes duplicates and shared slots; some keys carry a
				// hash tag.
				int id = random.nextInt(Math.max(1, size / 2));
				keys[i] = key((random.nextInt(4) == 0) ? "{tag" + (id % 7) + "}" + id : "key:" + id);
			}
			assertThat(describe(SlotPlan.of(keys))).as("%d keys", size).isEqualTo(describe(sortedPlan(keys)));
		}
	}

	@Test
	void nullKeyIsRejectedNamingItsIndex() {
		assertThatIllegalArgumentException().isThrownBy(() -> SlotPlan.of(new byte[][] { key("a"), null }))
			.withMessageContaining("'keys'")
			.withMessageContaining("index 1");
	}

	@Test
	void addressesParseIpv6HostsUpToTheLastColon() {
		assertThat(NodeAddress.parse("::1:7001")).isEqualTo(new NodeAddress("::1", 7001));
		assertThat(NodeAddress.parse("[fe80::1]:7001")).isEqualTo(new NodeAddress("fe80::1", 7001));
		assertThatIllegalArgumentException().isThrownBy(() -> NodeAddress.parse("7001"))
			.withMessageContaining("'hostAndPort'");
	}

	@Test
	void chunksKeepOrderAndBound() {
		List<int[]> chunks = Chunks.of(new int[] { 1, 2, 3, 4, 5 }, 2);
		assertThat(chunks).hasSize(3);
		assertThat(chunks.get(0)).containsExactly(1, 2);
		assertThat(chunks.get(2)).containsExactly(5);
	}

	@Test
	void slotTableAnswersOwner() {
		NodeAddress node = NodeAddress.parse("10.0.0.1:7000");
		SlotTable table = SlotTable.of(Map.of(node, new int[] { 0, 5 }));
		assertThat(table.owner(5)).isEqualTo(node);
		assertThat(table.owner(6)).isNull();
		assertThat(table.owner(0)).isEqualTo(node);
	}

	/**
	 * The planner before issue 19: sort (slot, position) pairs, then cut runs of one
	 * slot.
	 */
	private static List<SlotGroup> sortedPlan(byte[][] keys) {
		long[] packed = new long[keys.length];
		for (int i = 0; i < keys.length; i++) {
			packed[i] = ((long) SlotHash.slot(keys[i]) << 32) | i;
		}
		Arrays.sort(packed);
		List<SlotGroup> groups = new ArrayList<>();
		int from = 0;
		while (from < packed.length) {
			int slot = (int) (packed[from] >>> 32);
			int to = from;
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
		return groups;
	}

	private static List<String> describe(SlotPlan plan) {
		return describe(plan.groups());
	}

	private static List<String> describe(List<SlotGroup> groups) {
		return groups.stream().map((g) -> g.slot() + "=" + Arrays.toString(g.positions())).toList();
	}

	private static byte[] keyOfSlot(int slot) {
		for (int i = 0;; i++) {
			byte[] key = key("k" + i);
			if (SlotHash.slot(key) == slot) {
				return key;
			}
		}
	}

	private static byte[][] keys(String... keys) {
		byte[][] bytes = new byte[keys.length][];
		for (int i = 0; i < keys.length; i++) {
			bytes[i] = key(keys[i]);
		}
		return bytes;
	}

	private static byte[] key(String key) {
		return key.getBytes(StandardCharsets.UTF_8);
	}

}
