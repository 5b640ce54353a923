package dev.slotwise.internal.topology;

import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.Set;

import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisClusterNode.Flag;
import org.springframework.data.redis.connection.RedisClusterNode.LinkState;

/**
 * Keeps in a topology only the failures the cluster agreed on. One node's
 * {@code CLUSTER NODES} answer carries that node's own suspicions: {@code fail?} (it has
 * not heard from a master within the node timeout) and a disconnected link. The cluster
 * marks a master {@code fail} only when a majority of masters agree. Routing on one
 * node's suspicion would take a healthy master's slots away from every caller that
 * happened to ask that node.
 */
final class AgreedFailures {

	private AgreedFailures() {
	}

	/**
	 * Returns the nodes with lone suspicions cleared: {@code fail?} dropped and the link
	 * taken as connected unless the node is marked {@code fail}.
	 * @param nodes the nodes as one node reported them
	 * @return the nodes to route by
	 */
	static Set<RedisClusterNode> apply(Set<RedisClusterNode> nodes) {
		Set<RedisClusterNode> result = new LinkedHashSet<>(nodes.size());
		for (RedisClusterNode node : nodes) {
			result.add(isLoneSuspicion(node) ? cleared(node) : node);
		}
		return result;
	}

	private static boolean isLoneSuspicion(RedisClusterNode node) {
		Set<Flag> flags = node.getFlags();
		if (flags.contains(Flag.FAIL)) {
			return false;
		}
		return flags.contains(Flag.PFAIL) || !node.isConnected();
	}

	private static RedisClusterNode cleared(RedisClusterNode node) {
		Set<Flag> flags = node.getFlags().isEmpty() ? EnumSet.noneOf(Flag.class) : EnumSet.copyOf(node.getFlags());
		flags.remove(Flag.PFAIL);
		RedisClusterNode.RedisClusterNodeBuilder builder = RedisClusterNode.newRedisClusterNode()
			.withFlags(flags)
			.linkState(LinkState.CONNECTED)
			.serving(node.getSlotRange());
		if (node.getHost() != null && node.getPort() != null) {
			builder.listeningAt(node.getHost(), node.getPort());
		}
		if (node.getId() != null) {
			builder.withId(node.getId());
		}
		if (node.getName() != null) {
			builder.withName(node.getName());
		}
		if (node.getType() != null) {
			builder.promotedAs(node.getType());
		}
		if (node.getMasterId() != null) {
			builder.replicaOf(node.getMasterId());
		}
		return builder.build();
	}

}
