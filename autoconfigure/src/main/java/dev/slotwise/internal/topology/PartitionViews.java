package dev.slotwise.internal.topology;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Set;

import dev.slotwise.internal.routing.SlotHash;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import org.jspecify.annotations.Nullable;

/**
 * What a Lettuce client's refreshes read from a topology view
 * ({@link SamplingRedisClusterClient}): whether a failover may be coming, whether every
 * slot is served again, and what of a view matters for routing.
 */
final class PartitionViews {

	private PartitionViews() {
	}

	/**
	 * Whether a view shows a master that serves slots as suspected ({@code fail?}), or as
	 * failed where the view kept does not: a failover may be coming that the kept view
	 * does not show yet. A master the kept view already shows as failed is not a
	 * suspicion (a change was seen; a master with no replica to take over stays failed,
	 * and must not keep the wait short for as long as it is down).
	 * @param view one asked node's view
	 * @param kept the view Lettuce kept
	 * @return whether the view suspects a master that serves slots
	 */
	static boolean suspects(Partitions view, Partitions kept) {
		for (RedisClusterNode node : view) {
			if (!node.is(NodeFlag.UPSTREAM) || node.getSlots().isEmpty()) {
				continue;
			}
			if (node.is(NodeFlag.EVENTUAL_FAIL)) {
				return true;
			}
			if (node.is(NodeFlag.FAIL)) {
				RedisClusterNode known = kept.getPartitionByNodeId(node.getNodeId());
				if (known == null || !known.is(NodeFlag.FAIL)) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * Whether every slot has a master that the cluster has not agreed has failed: no
	 * failover is under way.
	 */
	static boolean settled(@Nullable Partitions partitions) {
		if (partitions == null) {
			return false;
		}
		BitSet served = new BitSet(SlotHash.SLOT_COUNT);
		for (RedisClusterNode node : partitions) {
			if (node.is(NodeFlag.UPSTREAM) && !node.is(NodeFlag.FAIL) && !node.is(NodeFlag.NOADDR)) {
				for (int slot : node.getSlots()) {
					served.set(slot);
				}
			}
		}
		return served.cardinality() == SlotHash.SLOT_COUNT;
	}

	/**
	 * What a refresh can change that matters for routing: each node's id, address, role,
	 * agreed failure, master and slots. Not what differs between the nodes asked
	 * ({@code myself}) or is one node's suspicion ({@code fail?}).
	 */
	static String fingerprint(@Nullable Partitions partitions) {
		if (partitions == null) {
			return "";
		}
		List<String> nodes = new ArrayList<>();
		for (RedisClusterNode node : partitions) {
			nodes.add(node.getNodeId() + " " + node.getUri() + " " + node.getRole() + " " + node.is(NodeFlag.FAIL) + " "
					+ node.is(NodeFlag.NOADDR) + " " + node.getSlaveOf() + " " + node.getSlots().hashCode() + "/"
					+ node.getSlots().size());
		}
		nodes.sort(null);
		return String.join("\n", nodes);
	}

	/**
	 * Whether an address is that of a master that serves slots in a view, by its IP or
	 * host name.
	 */
	static boolean isServingMaster(Partitions partitions, InetSocketAddress address) {
		for (RedisClusterNode node : partitions) {
			RedisURI uri = node.getUri();
			if (uri != null && node.is(NodeFlag.UPSTREAM) && !node.getSlots().isEmpty()
					&& uri.getPort() == address.getPort()
					&& (uri.getHost().equals(address.getHostString()) || (address.getAddress() != null
							&& uri.getHost().equals(address.getAddress().getHostAddress())))) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The replicas of the masters that serve slots and that a view showed as suspected or
	 * failed, in random order: those a failover promotes. Empty when no failover is under
	 * way (or the failing master has no replica to take over, which a watch cannot
	 * change).
	 */
	static List<RedisURI> failoverSources(@Nullable Partitions partitions, boolean suspected, Set<String> failing) {
		if (partitions == null || (!suspected && settled(partitions))) {
			return List.of();
		}
		List<RedisClusterNode> replicas = new ArrayList<>();
		for (RedisClusterNode master : partitions) {
			if (!master.is(NodeFlag.UPSTREAM) || master.getSlots().isEmpty() || !(master.is(NodeFlag.FAIL)
					|| master.is(NodeFlag.EVENTUAL_FAIL) || failing.contains(master.getNodeId()))) {
				continue;
			}
			for (RedisClusterNode node : partitions) {
				if (master.getNodeId().equals(node.getSlaveOf()) && node.getUri() != null && !node.is(NodeFlag.FAIL)
						&& !node.is(NodeFlag.NOADDR)) {
					replicas.add(node);
				}
			}
		}
		return RefreshOrder.shuffled(replicas, (node) -> RefreshOrder.PREFERRED)
			.stream()
			.map(RedisClusterNode::getUri)
			.toList();
	}

}
