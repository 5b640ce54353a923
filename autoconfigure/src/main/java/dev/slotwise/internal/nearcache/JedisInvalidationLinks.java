package dev.slotwise.internal.nearcache;

import java.util.List;
import java.util.concurrent.Executor;

import dev.slotwise.internal.compat.JedisInternals;
import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.topology.RefreshableTopologyProvider;
import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.ClusterTopologyProvider;

/**
 * {@link InvalidationLinks} over a Jedis cluster client: each link holds one connection
 * of the node's pool (created through Jedis's connection provider when Jedis has no pool
 * for the node yet) and reads on a thread of its own; the shards come from the factory's
 * topology provider.
 */
final class JedisInvalidationLinks implements InvalidationLinks {

	private final RedisClusterClient client;

	private final ClusterTopologyProvider topologyProvider;

	private final Executor readers;

	JedisInvalidationLinks(RedisClusterClient client, ClusterTopologyProvider topologyProvider, Executor readers) {
		this.client = client;
		this.topologyProvider = topologyProvider;
		this.readers = readers;
	}

	@Override
	public InvalidationLink open(NodeAddress node, List<byte[]> prefixes, InvalidationLink.Events events) {
		JedisInvalidationLink link = new JedisInvalidationLink(node, () -> borrow(node), prefixes, events);
		link.start(this.readers);
		return link;
	}

	@Override
	public ClusterTopology topology(boolean fresh) {
		if (fresh && this.topologyProvider instanceof RefreshableTopologyProvider refreshable) {
			refreshable.invalidate();
		}
		return this.topologyProvider.getTopology();
	}

	private Connection borrow(NodeAddress node) {
		return JedisInternals.nodeConnection(this.client, node.host(), node.port());
	}

	@Override
	public void close() {
	}

}
