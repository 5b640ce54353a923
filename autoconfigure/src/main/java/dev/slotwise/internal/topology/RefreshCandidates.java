package dev.slotwise.internal.topology;

import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import org.jspecify.annotations.Nullable;

/**
 * The nodes a Lettuce refresh may ask, in the order to ask them: the nodes of the known
 * topology (replicas first when asked to prefer them, failing nodes last), shuffled
 * within each tier so that a fleet of clients spreads its queries; the configured seed
 * nodes when no topology is known or dynamic refresh sources are off.
 *
 * @param uris the nodes
 * @param seeds whether they are the configured seed nodes (no fallback left after them)
 */
record RefreshCandidates(List<RedisURI> uris, boolean seeds) {

	/**
	 * Orders the candidates of a refresh.
	 * @param known the topology known, or {@code null} to ask the seeds (none yet, or
	 * dynamic refresh sources off)
	 * @param preferReplicas whether replicas are asked before masters when any are known
	 * @param seedUris the configured seed nodes
	 * @return the candidates
	 */
	static RefreshCandidates of(@Nullable Partitions known, boolean preferReplicas, Iterable<RedisURI> seedUris) {
		if (known == null || known.isEmpty()) {
			List<RedisURI> seeds = new ArrayList<>();
			seedUris.forEach(seeds::add);
			return new RefreshCandidates(RefreshOrder.shuffled(seeds, (uri) -> RefreshOrder.PREFERRED), true);
		}
		List<RedisClusterNode> nodes = new ArrayList<>();
		for (RedisClusterNode node : known) {
			if (node.getUri() != null && !node.is(NodeFlag.NOADDR)) {
				nodes.add(node);
			}
		}
		boolean replicasKnown = preferReplicas && nodes.stream().anyMatch(RefreshCandidates::isReplica);
		return new RefreshCandidates(RefreshOrder.shuffled(nodes, (node) -> tier(node, replicasKnown))
			.stream()
			.map(RedisClusterNode::getUri)
			.toList(), false);
	}

	private static int tier(RedisClusterNode node, boolean preferReplicas) {
		if (node.is(NodeFlag.FAIL) || node.is(NodeFlag.EVENTUAL_FAIL)) {
			return RefreshOrder.LAST_RESORT;
		}
		return (!preferReplicas || isReplica(node)) ? RefreshOrder.PREFERRED : RefreshOrder.FALLBACK;
	}

	private static boolean isReplica(RedisClusterNode node) {
		return node.is(NodeFlag.REPLICA) || node.is(NodeFlag.SLAVE);
	}

}
