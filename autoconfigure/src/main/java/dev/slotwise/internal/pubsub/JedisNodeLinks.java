package dev.slotwise.internal.pubsub;

import java.lang.reflect.Field;
import java.util.Map;

import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.topology.RefreshableTopologyProvider;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.ClusterConnectionProvider;

import org.springframework.data.redis.connection.ClusterTopologyProvider;

/**
 * {@link NodeLinks} over a Jedis cluster client: links borrow one connection from the node's pool for as long as they
 * live, as Spring Data Redis's own subscriptions do; the masters come from the connection's topology provider.
 */
final class JedisNodeLinks implements NodeLinks {

	private static final Log logger = LogFactory.getLog(JedisNodeLinks.class);

	private final RedisClusterClient client;

	private final ClusterTopologyProvider topologyProvider;

	private final PubSubRuntime runtime;

	private final @Nullable ClusterConnectionProvider provider;

	JedisNodeLinks(RedisClusterClient client, ClusterTopologyProvider topologyProvider, PubSubRuntime runtime) {
		this.client = client;
		this.topologyProvider = topologyProvider;
		this.runtime = runtime;
		this.provider = clusterConnectionProvider(client);
	}

	@Override
	public NodeLink open(NodeAddress node, NodeLink.Events events) {
		return new JedisNodeLink(node, this::borrow, this.runtime.readers(), this.runtime.timeout(), events);
	}

	@Override
	public Masters masters(boolean fresh) {
		if (fresh && this.topologyProvider instanceof RefreshableTopologyProvider refreshable) {
			refreshable.invalidate();
		}
		return Masters.of(this.topologyProvider.getTopology());
	}

	/**
	 * Borrows a connection to a node from its pool. Jedis creates a node's pool only once its slot table names the
	 * node, which may lag behind the topology (a master just added or promoted): then the pool is created through
	 * Jedis's connection provider, which does exactly that for a given address.
	 */
	private Connection borrow(NodeAddress node) {
		Map<String, ConnectionPool> pools = this.client.getClusterNodes();
		ConnectionPool pool = pools.get(node.toString());
		if (pool != null) {
			return pool.getResource();
		}
		ClusterConnectionProvider provider = this.provider;
		if (provider == null) {
			throw new IllegalStateException("Jedis has no connection pool for " + node + " yet");
		}
		return provider.getConnection(new HostAndPort(node.host(), node.port()));
	}

	@Override
	public void close() {
	}

	/**
	 * Jedis keeps its cluster connection provider in {@code UnifiedJedis}'s protected {@code provider} field, the only
	 * place that creates a pool for a given address; when it cannot be read, links to nodes without a pool wait until
	 * Jedis renews its slot table itself.
	 */
	private static @Nullable ClusterConnectionProvider clusterConnectionProvider(UnifiedJedis client) {
		try {
			Field field = UnifiedJedis.class.getDeclaredField("provider");
			field.setAccessible(true);
			return (field.get(client) instanceof ClusterConnectionProvider provider) ? provider : null;
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			logger.warn("Cannot reach the connection provider of the Jedis cluster client (" + ex
					+ "): subscriptions on a new master wait until Jedis renews its slot table");
			return null;
		}
	}

}
