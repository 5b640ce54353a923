package dev.slotwise.internal.nearcache;

import redis.clients.jedis.RedisClusterClient;

import org.springframework.data.redis.connection.ClusterTopologyProvider;

/**
 * Binds a near cache to a started Jedis cluster client. Apart from the Lettuce one, so
 * that an application without Lettuce never loads a class that names it.
 */
public final class JedisNearCacheSupport {

	private JedisNearCacheSupport() {
	}

	/**
	 * Makes sure the near cache tracks on the client: called when a connection of it
	 * opens.
	 * @param runtime the near cache
	 * @param client the started client
	 * @param topologyProvider the factory's topology provider
	 */
	public static void ensureTracking(NearCacheRuntime runtime, RedisClusterClient client,
			ClusterTopologyProvider topologyProvider) {
		runtime.ensureTracking(client, () -> new JedisInvalidationLinks(client, topologyProvider, runtime.readers()));
	}

}
