package dev.slotwise.routing;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

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
		assertThat(plan.keyCount()).isEqualTo(5);
		assertThat(plan.groups()).hasSize(2);
		SlotGroup tagged = plan.groups().stream().filter((g) -> g.slot() == SlotHash.slot(key("a"))).findFirst().get();
		assertThat(tagged.positions()).containsExactly(0, 2, 4);
		SlotGroup plain = plan.groups().stream().filter((g) -> g.slot() == SlotHash.slot(key("b"))).findFirst().get();
		assertThat(plain.positions()).containsExactly(1, 3);
	}

	@Test
	void sameSlotKeysAreSingleSlot() {
		assertThat(SlotPlan.of(keys("{x}1", "{x}2")).isSingleSlot()).isTrue();
		assertThat(SlotPlan.of(keys("x1", "x2")).isSingleSlot()).isFalse();
	}

	@Test
	void groupsSlotsByOwningNode() {
		NodeAddress one = new NodeAddress("127.0.0.1", 1);
		NodeAddress two = new NodeAddress("127.0.0.1", 2);
		SlotPlan plan = SlotPlan.of(keys("a", "b", "c", "d"));
		List<NodeBatch> batches = plan.byNode((slot) -> (slot < 8192) ? one : two);
		assertThat(batches).extracting(NodeBatch::node).containsExactlyInAnyOrder(one, two);
		assertThat(batches.stream().mapToInt(NodeBatch::keyCount).sum()).isEqualTo(4);
	}

	@Test
	void nullKeyIsRejectedNamingItsIndex() {
		assertThatIllegalArgumentException().isThrownBy(() -> SlotPlan.of(new byte[][] { key("a"), null }))
			.withMessageContaining("'keys'")
			.withMessageContaining("index 1");
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
		assertThat(table.coveredSlots()).isEqualTo(2);
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
