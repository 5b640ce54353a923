package dev.slotwise.internal.pubsub;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.SlotTable;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.RedisClusterNode;

/**
 * The masters serving slots in one view of the topology, in a stable order, and which of them owns each slot.
 *
 * @param addresses the masters serving at least one slot, sorted by address
 * @param slots who owns each slot
 */
record Masters(List<NodeAddress> addresses, SlotTable slots) {

	static final Masters NONE = new Masters(List.of(), SlotTable.of(Map.of()));

	/**
	 * Reads the serving masters of a Spring Data Redis topology.
	 * @param topology the topology
	 * @return the masters
	 */
	static Masters of(ClusterTopology topology) {
		Map<NodeAddress, int[]> slots = new LinkedHashMap<>();
		for (RedisClusterNode master : topology.getActiveMasterNodes()) {
			if (!master.hasValidHost() || master.getSlotRange().getSlots().isEmpty()) {
				continue;
			}
			int[] owned = master.getSlotRange().getSlotsArray();
			slots.put(new NodeAddress(master.getRequiredHost(), master.getRequiredPort()), owned);
		}
		return of(slots);
	}

	/**
	 * Builds the masters from their slots.
	 * @param slots the slots of each serving master
	 * @return the masters
	 */
	static Masters of(Map<NodeAddress, int[]> slots) {
		List<NodeAddress> addresses = new ArrayList<>(slots.keySet());
		addresses.sort(Comparator.comparing(NodeAddress::host).thenComparingInt(NodeAddress::port));
		return new Masters(List.copyOf(addresses), SlotTable.of(slots));
	}

	@Nullable NodeAddress owner(int slot) {
		return this.slots.owner(slot);
	}

	boolean isEmpty() {
		return this.addresses.isEmpty();
	}

}
