package dev.slotwise.internal.pubsub;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.SlotTable;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.RedisClusterNode;

/**
 * The masters serving slots in one view of the topology, in a stable order, which of them
 * owns each slot, and the nodes the view knows to serve none (replicas, empty masters). A
 * view read from one node may lag behind the cluster: a node it does not mention at all
 * is not taken to have stopped serving.
 *
 * @param addresses the masters serving at least one slot, sorted by address
 * @param slots who owns each slot
 * @param others the nodes the view knows that serve no slot
 */
record Masters(List<NodeAddress> addresses, SlotTable slots, Set<NodeAddress> others) {

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
		Set<NodeAddress> others = new HashSet<>();
		for (RedisClusterNode node : topology.getNodes()) {
			if (node.hasValidHost()) {
				NodeAddress address = new NodeAddress(node.getRequiredHost(), node.getRequiredPort());
				if (!slots.containsKey(address)) {
					others.add(address);
				}
			}
		}
		return of(slots, others);
	}

	/**
	 * Builds the masters from their slots.
	 * @param slots the slots of each serving master
	 * @return the masters
	 */
	static Masters of(Map<NodeAddress, int[]> slots) {
		return of(slots, Set.of());
	}

	/**
	 * Builds the masters from their slots.
	 * @param slots the slots of each serving master
	 * @param others the nodes known to serve no slot
	 * @return the masters
	 */
	static Masters of(Map<NodeAddress, int[]> slots, Set<NodeAddress> others) {
		List<NodeAddress> addresses = new ArrayList<>(slots.keySet());
		addresses.sort(Comparator.comparing(NodeAddress::host).thenComparingInt(NodeAddress::port));
		Set<NodeAddress> notServing = new HashSet<>(others);
		notServing.removeAll(slots.keySet());
		return new Masters(List.copyOf(addresses), SlotTable.of(slots), Set.copyOf(notServing));
	}

	@Nullable NodeAddress owner(int slot) {
		return this.slots.owner(slot);
	}

	boolean isEmpty() {
		return this.addresses.isEmpty();
	}

}
