package dev.slotwise.pool;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Opens the node connections of Lettuce's shared cluster connection ahead of the first request. Lettuce connects
 * to each node lazily, on the first command routed to it; that connect is what the first requests would pay.
 */
public final class LettuceClusterPrewarmer {

	private static final Log logger = LogFactory.getLog(LettuceClusterPrewarmer.class);

	private LettuceClusterPrewarmer() {
	}

	/**
	 * Connects to every master, and to every replica when reads may go to replicas.
	 * @param connection the shared cluster connection
	 * @param includeReplicas whether replicas are warmed too
	 * @return what was warmed and what failed
	 */
	public static PrewarmResult prewarm(StatefulRedisClusterConnection<?, ?> connection, boolean includeReplicas) {
		List<String> warmed = new ArrayList<>();
		Map<String, Exception> failed = new LinkedHashMap<>();
		for (RedisClusterNode node : connection.getPartitions()) {
			boolean master = node.is(RedisClusterNode.NodeFlag.UPSTREAM);
			if (!master && !includeReplicas) {
				continue;
			}
			String key = node.getUri().getHost() + ":" + node.getUri().getPort();
			try {
				connection.getConnection(node.getNodeId());
				warmed.add(key);
			}
			catch (RuntimeException ex) {
				failed.put(key, ex);
				logger.warn("Could not pre-warm the connection to Redis node " + key + ": " + ex.getMessage());
			}
		}
		return new PrewarmResult(warmed, failed);
	}

}
