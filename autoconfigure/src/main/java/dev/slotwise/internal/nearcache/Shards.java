package dev.slotwise.internal.nearcache;

import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.SlotHash;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisNode.NodeType;

/**
 * The cluster as the near cache needs it: who owns each slot, and for every live node
 * (master or replica, a master without slots included, with none) the slots of its shard.
 * A replica's invalidations matter as much as its master's: a failover makes it the
 * master before any topology view says so, and writes then land on it.
 *
 * @param owners the owner of each slot, {@code null} where none is known
 * @param shardSlots the slots of each live node's shard
 * @param failedLeftOut whether the view flagged nodes failed (left out): one may come
 * back, unseen by a cached view
 */
record Shards(@Nullable NodeAddress[] owners, Map<NodeAddress, BitSet> shardSlots, boolean failedLeftOut) {

	/** No view: nothing tracked. */
	static final Shards NONE = new Shards(new NodeAddress[SlotHash.SLOT_COUNT], Map.of(), false);

	/**
	 * Reads the shards of a Spring Data Redis topology. Nodes flagged failed are left out
	 * (they cannot be promoted, and a dead replica must not keep its shard untracked); a
	 * replica whose master is not in the view is left out too.
	 * @param topology the topology
	 * @return the shards
	 */
	static Shards of(ClusterTopology topology) {
		NodeAddress[] owners = new NodeAddress[SlotHash.SLOT_COUNT];
		Map<String, BitSet> slotsById = new HashMap<>();
		Map<NodeAddress, BitSet> shardSlots = new LinkedHashMap<>();
		boolean failedLeftOut = false;
		for (RedisClusterNode node : topology.getNodes()) {
			failedLeftOut |= failed(node);
			if (!node.isMaster() || !node.hasValidHost() || failed(node)) {
				continue;
			}
			// A master without slots is live too: it is linked before slots move to it
			// (scale-out), or it is an old master the view caught between its failover
			// and its turn to replica, whose writes still reach it.
			int[] owned = node.getSlotRange().getSlotsArray();
			NodeAddress address = address(node);
			BitSet slots = new BitSet(SlotHash.SLOT_COUNT);
			for (int slot : owned) {
				slots.set(slot);
				owners[slot] = address;
			}
			shardSlots.put(address, slots);
			if (node.getId() != null) {
				slotsById.put(node.getId(), slots);
			}
		}
		for (RedisClusterNode node : topology.getNodes()) {
			if (node.getType() != NodeType.REPLICA || !node.hasValidHost() || failed(node)) {
				continue;
			}
			BitSet slots = (node.getMasterId() != null) ? slotsById.get(node.getMasterId()) : null;
			if (slots != null) {
				shardSlots.put(address(node), slots);
			}
		}
		return new Shards(owners, Map.copyOf(shardSlots), failedLeftOut);
	}

	/**
	 * Returns the slots that have an owner.
	 * @return a new set of the owned slots
	 */
	BitSet ownedSlots() {
		BitSet owned = new BitSet(SlotHash.SLOT_COUNT);
		for (BitSet slots : this.shardSlots.values()) {
			owned.or(slots);
		}
		return owned;
	}

	private static boolean failed(RedisClusterNode node) {
		Set<RedisClusterNode.Flag> flags = node.getFlags();
		return flags != null && (flags.contains(RedisClusterNode.Flag.FAIL)
				|| flags.contains(RedisClusterNode.Flag.NOADDR) || flags.contains(RedisClusterNode.Flag.HANDSHAKE));
	}

	private static NodeAddress address(RedisClusterNode node) {
		return new NodeAddress(node.getRequiredHost(), node.getRequiredPort());
	}

	/**
	 * Returns the owner of a slot.
	 * @param slot the slot
	 * @return the owner, or {@code null}
	 */
	@Nullable NodeAddress owner(int slot) {
		return this.owners[slot];
	}

	/**
	 * Returns the slots of a node's shard.
	 * @param node the node
	 * @return the slots, empty for a node the view does not know
	 */
	BitSet slotsOf(NodeAddress node) {
		BitSet slots = this.shardSlots.get(node);
		return (slots != null) ? (BitSet) slots.clone() : new BitSet();
	}

	/**
	 * Returns the slots whose owner differs between two views (a failover, a migration),
	 * among the slots this view owns.
	 * @param before the earlier view
	 * @return the slots that moved
	 */
	BitSet movedSince(Shards before) {
		BitSet moved = new BitSet(SlotHash.SLOT_COUNT);
		if (before.owners == this.owners) {
			return moved;
		}
		for (int slot = 0; slot < SlotHash.SLOT_COUNT; slot++) {
			NodeAddress was = before.owners[slot];
			if (was != null && !was.equals(this.owners[slot])) {
				moved.set(slot);
			}
		}
		return moved;
	}

}
