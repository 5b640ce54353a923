package dev.slotwise.connection;

import java.util.Map;

import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.data.redis.connection.ClusterNodeResourceProvider;
import org.springframework.data.redis.connection.RedisClusterNode;

/**
 * Lends Spring Data Redis's cluster command executor a connection to one node from the
 * Jedis cluster client's per-node pool (Spring Data Redis's own provider is
 * package-private).
 */
final class JedisNodeResourceProvider implements ClusterNodeResourceProvider {

	private final RedisClusterClient client;

	JedisNodeResourceProvider(RedisClusterClient client) {
		this.client = client;
	}

	@Override
	@SuppressWarnings("unchecked")
	public Jedis getResourceForSpecificNode(RedisClusterNode node) {
		Map<String, ConnectionPool> pools = this.client.getClusterNodes();
		ConnectionPool pool = pools.get(node.getHost() + ":" + node.getPort());
		if (pool == null && node.getName() != null) {
			// An announced hostname (cluster-preferred-endpoint-type hostname): Jedis
			// keys its pools by it.
			pool = pools.get(node.getName() + ":" + node.getPort());
		}
		if (pool == null) {
			throw new DataAccessResourceFailureException("Node %s is unknown to the cluster client".formatted(node));
		}
		return new Jedis(pool.getResource());
	}

	@Override
	public void returnResourceForSpecificNode(RedisClusterNode node, Object resource) {
		((Jedis) resource).close();
	}

}
