package dev.slotwise.internal.nearcache;

import java.util.function.Supplier;

import io.lettuce.core.cluster.RedisClusterClient;

import org.springframework.data.redis.connection.ClusterTopologyProvider;

/**
 * Binds a near cache to a started Lettuce cluster client. Apart from the Jedis one, so
 * that an application without Jedis never loads a class that names it.
 */
public final class LettuceNearCacheSupport {

	private LettuceNearCacheSupport() {
	}

	/**
	 * Makes sure the near cache tracks on the client: called when a connection of it
	 * opens.
	 * @param runtime the near cache
	 * @param client the started client
	 * @param topology the factory's topology provider
	 * @param refresh asks for a (paced) partition refresh
	 */
	public static void ensureTracking(NearCacheRuntime runtime, RedisClusterClient client,
			Supplier<ClusterTopologyProvider> topology, Runnable refresh) {
		runtime.ensureTracking(client, () -> new LettuceInvalidationLinks(client, topology, refresh));
	}

}
