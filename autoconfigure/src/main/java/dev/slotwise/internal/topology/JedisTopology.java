package dev.slotwise.internal.topology;

import java.time.Duration;
import java.util.function.Consumer;

import dev.slotwise.internal.compat.JedisInternals;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.builders.ClusterClientBuilder;

import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.util.Assert;

/**
 * Slotwise's topology for Jedis: a {@link RefreshableTopologyProvider} that asks one
 * random node per refresh, caches the answer and runs at most one refresh at a time per
 * client. The provider is a Spring Data Redis
 * {@code JedisClusterConnection.JedisClusterTopologyProvider}, so code that casts to that
 * type keeps working.
 */
public final class JedisTopology {

	private JedisTopology() {
	}

	/**
	 * Creates a provider for a Jedis cluster client. The nodes it asks are those the
	 * client knows (its per-node connection pools, replicas included), and it borrows
	 * connections from those pools, so it opens no connections of its own. Only when none
	 * of them answers does it make the client re-read its slot table from the configured
	 * seed nodes, over the short-lived connections Jedis opens for that, and ask the
	 * nodes they name.
	 * @param client a {@link RedisClusterClient} or {@link JedisCluster}
	 * @param settings the cache time-to-live, replica preference, initial timeout and
	 * observer
	 * @return the provider
	 */
	@SuppressWarnings("deprecation")
	public static RefreshableTopologyProvider provider(UnifiedJedis client, TopologySettings settings) {
		Assert.notNull(client, "'client' must not be null");
		Assert.notNull(settings, "'settings' must not be null");
		if (client instanceof RedisClusterClient clusterClient) {
			return new RandomizedJedisTopologyProvider(clusterClient, settings);
		}
		if (client instanceof JedisCluster jedisCluster) {
			return new RandomizedJedisTopologyProvider(jedisCluster, settings);
		}
		throw new IllegalArgumentException(
				"'client' must be a RedisClusterClient or JedisCluster but is a " + client.getClass().getName());
	}

	/**
	 * Has Jedis renew its slot cache after connection failures at most once per quarter
	 * of the minimum refresh interval ({@code slotwise.topology.min-refresh-interval}, 1
	 * s by default): Jedis's cluster executor renews after every second failed attempt of
	 * every command, and with a command's retries bounded by the timeout
	 * ({@link JedisRetryBudget}) a dead master's callers cycle through their attempts,
	 * and renewals, several times faster than with Jedis's default retry time; every one
	 * of those renewals returns the same slot table until the replica is promoted. A
	 * quarter of the interval keeps the client finding the promoted replica well within
	 * the interval. Renewals after a {@code MOVED} and Slotwise's own are not paced.
	 * @param builder the cluster client builder, after the application's customizer ran
	 * @param minRefreshInterval the least time between two refreshes of Slotwise's
	 * topology provider
	 * @return whether the renewals are paced; not when the application set its own
	 * connection provider or a client-side cache configuration, or Jedis's builder fields
	 * cannot be read ({@link JedisInternals#renewalPacing()})
	 */
	public static boolean paceRenewals(ClusterClientBuilder<?> builder, Duration minRefreshInterval) {
		Assert.notNull(builder, "'builder' must not be null");
		Assert.notNull(minRefreshInterval, "'minRefreshInterval' must not be null");
		return JedisInternals.paceRenewals(builder, renewalInterval(minRefreshInterval));
	}

	static Duration renewalInterval(Duration minRefreshInterval) {
		return minRefreshInterval.dividedBy(4);
	}

	/**
	 * Has a provider made by {@link #provider(UnifiedJedis, TopologySettings)} call a
	 * listener, on a thread of its own and never on the caller's, whenever a refresh
	 * finds the masters serving slots changed: masters serving slots that served none in
	 * the previous topology (a master added and given slots, a replica promoted), and
	 * masters that stopped serving (failed over, demoted, emptied). Jedis's slot table is
	 * renewed first when it has no pool for a new master yet, so that its pool exists
	 * when the listener runs. Typical use: pre-warm the new masters' pools, which Jedis
	 * would otherwise fill only as requests need them, and stop keeping idle connections
	 * to the others.
	 * @param provider the provider
	 * @param listener receives the change
	 * @return whether the provider is Slotwise's and took the listener
	 */
	public static boolean onServingMastersChanged(ClusterTopologyProvider provider,
			Consumer<ServingMastersChange> listener) {
		Assert.notNull(provider, "'provider' must not be null");
		Assert.notNull(listener, "'listener' must not be null");
		if (provider instanceof RandomizedJedisTopologyProvider randomized) {
			randomized.onServingMastersChanged(listener);
			return true;
		}
		return false;
	}

}
