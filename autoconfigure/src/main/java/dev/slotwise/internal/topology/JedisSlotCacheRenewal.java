package dev.slotwise.internal.topology;

import java.lang.reflect.Field;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.ClusterConnectionProvider;

/**
 * Makes a Jedis cluster client re-read its slot table the way Jedis itself does after repeated connection failures:
 * {@link ClusterConnectionProvider#renewSlotCache()} asks the configured seed nodes first (a new connection each, so
 * their names are resolved again and a {@code HostAndPortMapper} applies), then the nodes it holds pools for, and
 * creates the pools of nodes it had not seen.
 * <p>
 * Jedis exposes no public way to ask for that: the provider sits in {@code UnifiedJedis}'s protected
 * {@code provider} field, and the only public trigger is a keyed command that fails twice on its connection, then
 * sleeps a random back-off on the caller's thread before renewing. Reading the field once is the smaller evil; when
 * it cannot be read (a future Jedis renames it), renewal is unavailable and the caller is told so once.
 */
final class JedisSlotCacheRenewal {

	private static final Log logger = LogFactory.getLog(JedisSlotCacheRenewal.class);

	private final @Nullable ClusterConnectionProvider provider;

	JedisSlotCacheRenewal(UnifiedJedis client) {
		this.provider = clusterConnectionProvider(client);
	}

	/**
	 * Tells whether {@link #renew()} can reach Jedis's slot cache.
	 * @return whether renewal is available
	 */
	boolean isAvailable() {
		return this.provider != null;
	}

	/**
	 * Re-reads Jedis's slot table from the seed nodes, or from the known nodes when no seed answers. Does nothing when
	 * another thread renews at this moment (Jedis runs one renewal at a time and skips the others).
	 * @return whether a renewal was attempted
	 */
	boolean renew() {
		ClusterConnectionProvider provider = this.provider;
		if (provider == null) {
			return false;
		}
		provider.renewSlotCache();
		return true;
	}

	private static @Nullable ClusterConnectionProvider clusterConnectionProvider(UnifiedJedis client) {
		try {
			Field field = UnifiedJedis.class.getDeclaredField("provider");
			field.setAccessible(true);
			return (field.get(client) instanceof ClusterConnectionProvider provider) ? provider : null;
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			logger.warn("Cannot reach the slot cache of the Jedis cluster client (" + ex
					+ "): when no known node answers, the topology is not refreshed from the seed nodes until Jedis "
					+ "itself renews its slot cache");
			return null;
		}
	}

}
