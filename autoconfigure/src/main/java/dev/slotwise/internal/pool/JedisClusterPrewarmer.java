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
 * Fills the per-node pools of a Jedis cluster client up to min-idle. Jedis's cluster
 * client never does this itself (unlike its single-node pool); without it min-idle fills
 * only at the first evictor run and the first requests after start-up pay the connect.
 * <p>
 * Min-idle is kept only on the pools of the nodes that serve requests: the client builds
 * every pool with min-idle 0 and {@link #prewarm(RedisClusterClient, Collection, int)}
 * raises it on the pools it warms. Jedis holds a pool for every node, replicas included,
 * and the evictor would otherwise keep min-idle connections open to each of them, and to
 * every master demoted by a failover ({@link #release(RedisClusterClient, Collection)}),
 * connections no request uses.
 */
public final class JedisClusterPrewarmer {

	private static final Log logger = LogFactory.getLog(JedisClusterPrewarmer.class);

	private JedisClusterPrewarmer() {
	}

	/**
	 * Opens min-idle connections to each node the supplier names, typically the masters
	 * of the current topology. When the nodes cannot be looked up (no node answers the
	 * topology lookup), logs one warning naming the cause and returns: pre-warm never
	 * fails start-up.
	 * @param client the started cluster client
	 * @param nodes looks up the nodes to warm
	 * @param minIdle the min-idle of the warmed nodes' pools
	 * @return what was warmed and what failed; an empty result when the lookup failed
	 */
	public static PrewarmResult prewarm(RedisClusterClient client, Supplier<Collection<RedisClusterNode>> nodes,
			int minIdle) {
		Collection<RedisClusterNode> found;
		try {
			found = nodes.get();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not pre-warm the Redis Cluster connection pools; start-up goes on and the first "
					+ "commands will connect: " + ex.getMessage());
			return new PrewarmResult(List.of(), Map.of());
		}
		return prewarm(client, found, minIdle);
	}

	/**
	 * Sets min-idle on the pool of each given node and opens that many connections. A
	 * node that cannot be reached gives one warning naming it and is skipped (its pool
	 * keeps the min-idle, which the evictor fills once the node answers); pre-warm never
	 * fails start-up.
	 * @param client the started cluster client
	 * @param nodes the nodes to warm, typically the masters
	 * @param minIdle the min-idle of the warmed nodes' pools
	 * @return what was warmed and what failed
	 */
	public static PrewarmResult prewarm(RedisClusterClient client, Collection<RedisClusterNode> nodes, int minIdle) {
		Map<String, ConnectionPool> pools = client.getClusterNodes();
		List<String> warmed = new ArrayList<>();
		Map<String, Exception> failed = new LinkedHashMap<>();
		for (RedisClusterNode node : nodes) {
			NodeAddress address = JedisNodePools.address(node, pools.keySet());
			String key = (address != null) ? address.toString() : node.asString();
			ConnectionPool pool;
			try {
				// A node Jedis's slot cache does not list yet (a fresh cluster's replica)
				// gets its pool now.
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
				pool.setMinIdle(minIdle);
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

	/**
	 * Sets min-idle to 0 on the pools of the given nodes, typically masters that no
	 * longer serve slots: their idle connections then close as any idle connection above
	 * min-idle does (after the soft-min evictable idle time, at an evictor run), and none
	 * are opened again until requests need them. Nodes without a pool are skipped.
	 * @param client the started cluster client
	 * @param nodes the nodes whose pools stop keeping idle connections
	 */
	public static void release(RedisClusterClient client, Collection<RedisClusterNode> nodes) {
		Map<String, ConnectionPool> pools = client.getClusterNodes();
		for (RedisClusterNode node : nodes) {
			ConnectionPool pool = JedisNodePools.find(pools, node);
			if (pool != null) {
				pool.setMinIdle(0);
			}
		}
	}

}
