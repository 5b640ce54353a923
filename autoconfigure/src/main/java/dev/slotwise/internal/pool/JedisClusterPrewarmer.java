package dev.slotwise.internal.pool;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.slotwise.internal.compat.JedisInternals;
import dev.slotwise.internal.compat.JedisNodePools;
import dev.slotwise.internal.routing.NodeAddress;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.data.redis.connection.RedisClusterNode;

/**
 * Fills the per-node pools of a Jedis cluster client up to min-idle. Jedis's cluster client never does this itself
 * (unlike its single-node pool); without it min-idle fills only at the first evictor run and the first requests
 * after start-up pay the connect.
 */
public final class JedisClusterPrewarmer {

	private static final Log logger = LogFactory.getLog(JedisClusterPrewarmer.class);

	private JedisClusterPrewarmer() {
	}

	/**
	 * Opens min-idle connections to each node the supplier names, typically the masters of the current topology.
	 * When the nodes cannot be looked up (no node answers the topology lookup), logs one warning naming the cause and
	 * returns: pre-warm never fails start-up.
	 * @param client the started cluster client
	 * @param nodes looks up the nodes to warm
	 * @return what was warmed and what failed; an empty result when the lookup failed
	 */
	public static PrewarmResult prewarm(RedisClusterClient client, Supplier<Collection<RedisClusterNode>> nodes) {
		Collection<RedisClusterNode> found;
		try {
			found = nodes.get();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not pre-warm the Redis Cluster connection pools; start-up goes on and the first "
					+ "commands will connect: " + ex.getMessage());
			return new PrewarmResult(List.of(), Map.of());
		}
		return prewarm(client, found);
	}

	/**
	 * Opens min-idle connections to each given node. A node that cannot be reached gives one warning naming it and
	 * is skipped; pre-warm never fails start-up.
	 * @param client the started cluster client
	 * @param nodes the nodes to warm, typically the masters
	 * @return what was warmed and what failed
	 */
	public static PrewarmResult prewarm(RedisClusterClient client, Collection<RedisClusterNode> nodes) {
		Map<String, ConnectionPool> pools = client.getClusterNodes();
		List<String> warmed = new ArrayList<>();
		Map<String, Exception> failed = new LinkedHashMap<>();
		for (RedisClusterNode node : nodes) {
			NodeAddress address = JedisNodePools.address(node, pools.keySet());
			String key = (address != null) ? address.toString() : node.asString();
			ConnectionPool pool;
			try {
				// A node Jedis's slot cache does not list yet (a fresh cluster's replica) gets its pool now.
				pool = JedisNodePools.findOrSetUp(client, pools, node);
			}
			catch (RuntimeException ex) {
				failed.put(key, ex);
				logger.warn("Could not pre-warm the connection pool of Redis node " + key + ": " + ex.getMessage());
				continue;
			}
			if (pool == null) {
				failed.put(key, new IllegalStateException("The cluster client has no pool for " + key));
				logger.warn("Could not pre-warm the connection pool of Redis node " + key
						+ ": the cluster client does not know it yet and cannot set it up ("
						+ JedisInternals.slotCache().describe() + ")");
				continue;
			}
			try {
				pool.preparePool();
				warmed.add(key);
			}
			catch (Exception ex) {
				failed.put(key, ex);
				logger.warn("Could not pre-warm the connection pool of Redis node " + key + ": " + ex.getMessage());
			}
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Pre-warmed the connection pools of " + warmed);
		}
		return new PrewarmResult(warmed, failed);
	}

}
