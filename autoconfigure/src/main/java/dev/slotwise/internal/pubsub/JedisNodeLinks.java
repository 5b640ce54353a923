package dev.slotwise.internal.pubsub;

import dev.slotwise.internal.compat.JedisInternals;
import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.topology.RefreshableTopologyProvider;
import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.data.redis.connection.ClusterTopologyProvider;

/**
 * {@link NodeLinks} over a Jedis cluster client: links borrow one connection from the
 * node's pool for as long as they live, as Spring Data Redis's own subscriptions do; the
 * masters come from the connection's topology provider.
 *
 * @param client the cluster client whose node pools the links borrow from
 * @param topologyProvider the connection's topology provider
 * @param runtime the pub/sub threads and timeout
 */
record JedisNodeLinks(RedisClusterClient client, ClusterTopologyProvider topologyProvider,
		PubSubRuntime runtime) implements NodeLinks {

	@Override
	public NodeLink open(NodeAddress node, NodeLink.Events events) {
		return new JedisNodeLink(node, this::borrow, this.runtime.readers(), this.runtime.timeout(), events);
	}

	@Override
	public Masters masters(boolean fresh) {
		if (fresh) {
			RefreshableTopologyProvider.invalidateIfCaching(this.topologyProvider);
		}
		return Masters.of(this.topologyProvider.getTopology());
	}

	private Connection borrow(NodeAddress node) {
		return JedisInternals.nodeConnection(this.client, node.host(), node.port());
	}

	@Override
	public void close() {
	}

}
