package dev.slotwise.topology;

import java.util.Map;
import java.util.function.Supplier;

import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

import org.springframework.util.Assert;

/**
 * Slotwise's topology for Jedis: a {@link RefreshableTopologyProvider} that asks one random node per refresh,
 * caches the answer and runs at most one refresh at a time per client.
 */
public final class JedisTopology {

	private JedisTopology() {
	}

	/**
	 * Creates a provider for a Jedis cluster client. The nodes it asks are those the client knows (its per-node
	 * connection pools, replicas included), and it borrows connections from those pools, so it opens no connections
	 * of its own.
	 * @param client a {@link RedisClusterClient} or {@link JedisCluster}
	 * @param settings the cache time-to-live, replica preference, initial timeout and observer
	 * @return the provider
	 */
	public static RefreshableTopologyProvider provider(UnifiedJedis client, TopologySettings settings) {
		Assert.notNull(client, "'client' must not be null");
		Assert.notNull(settings, "'settings' must not be null");
		return new RandomizedJedisTopologyProvider(nodes(client), settings);
	}

	@SuppressWarnings("deprecation")
	private static Supplier<Map<String, ConnectionPool>> nodes(UnifiedJedis client) {
		if (client instanceof RedisClusterClient clusterClient) {
			return clusterClient::getClusterNodes;
		}
		if (client instanceof JedisCluster jedisCluster) {
			return jedisCluster::getClusterNodes;
		}
		throw new IllegalArgumentException("'client' must be a RedisClusterClient or JedisCluster but is a "
				+ client.getClass().getName());
	}

}
