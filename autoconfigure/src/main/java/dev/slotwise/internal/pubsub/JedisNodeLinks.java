package dev.slotwise.internal.pubsub;

import java.util.Map;

import dev.slotwise.internal.compat.JedisInternals;
import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.topology.RefreshableTopologyProvider;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.providers.ClusterConnectionProvider;

import org.springframework.data.redis.connection.ClusterTopologyProvider;

/**
 * {@link NodeLinks} over a Jedis cluster client: links borrow one connection from the node's pool for as long as they
 * live, as Spring Data Redis's own subscriptions do; the masters come from the connection's topology provider.
 */
final class JedisNodeLinks implements NodeLinks {

	private final RedisClusterClient client;

	private final ClusterTopologyProvider topologyProvider;

	private final PubSubRuntime runtime;

	private final @Nullable ClusterConnectionProvider provider;

	JedisNodeLinks(RedisClusterClient client, ClusterTopologyProvider topologyProvider, PubSubRuntime runtime) {
		this.client = client;
		this.topologyProvider = topologyProvider;
		this.runtime = runtime;
		// Null when Jedis's provider cannot be reached (fast path jedis-slot-cache off, reported at start-up): links
		// to a node without a pool then wait until Jedis renews its slot table itself.
		this.provider = JedisInternals.clusterProvider(client);
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
	 * Jedis's connection provider ({@link JedisInternals#clusterProvider}), which does exactly that for a given address.
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

}
