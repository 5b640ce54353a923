package dev.slotwise.internal.nearcache;

import java.util.List;
import java.util.function.Supplier;

import dev.slotwise.internal.routing.NodeAddress;
import io.lettuce.core.cluster.RedisClusterClient;

import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.ClusterTopologyProvider;

/**
 * {@link InvalidationLinks} over a Lettuce cluster client: each link is the node
 * connection of a cluster connection of its own; the shards come from the factory's
 * topology provider (the client's partitions), refreshed through Slotwise's paced refresh
 * when asked fresh.
 */
final class LettuceInvalidationLinks implements InvalidationLinks {

	private final RedisClusterClient client;

	private final Supplier<ClusterTopologyProvider> topology;

	private final Runnable refresh;

	LettuceInvalidationLinks(RedisClusterClient client, Supplier<ClusterTopologyProvider> topology, Runnable refresh) {
		this.client = client;
		this.topology = topology;
		this.refresh = refresh;
	}

	@Override
	public InvalidationLink open(NodeAddress node, List<byte[]> prefixes, InvalidationLink.Events events) {
		LettuceInvalidationLink link = new LettuceInvalidationLink(node, this.client, events);
		link.start(prefixes);
		return link;
	}

	@Override
	public ClusterTopology topology(boolean fresh) {
		if (fresh) {
			this.refresh.run();
		}
		return this.topology.get().getTopology();
	}

	@Override
	public void close() {
	}

}
