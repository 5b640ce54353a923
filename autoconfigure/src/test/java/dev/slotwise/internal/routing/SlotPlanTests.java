package dev.slotwise.internal.routing;

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
		assertThat(plan.groups()).hasSize(2);
		SlotGroup tagged = plan.groups().stream().filter((g) -> g.slot() == SlotHash.slot(key("a"))).findFirst().get();
		assertThat(tagged.positions()).containsExactly(0, 2, 4);
		SlotGroup plain = plan.groups().stream().filter((g) -> g.slot() == SlotHash.slot(key("b"))).findFirst().get();
		assertThat(plain.positions()).containsExactly(1, 3);
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
