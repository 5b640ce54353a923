package dev.slotwise.internal.topology;

import java.util.Iterator;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.ClusterTopologyProvider;

/**
 * Caches the {@link ClusterTopology} Spring Data Redis converts from Lettuce's partitions
 * until those partitions change, instead of converting them on every lookup
 * (spring-data-redis #2500).
 * <p>
 * Lettuce replaces the node objects of its partitions on every reload, so "changed" is
 * decided by comparing the identities of the nodes in the partitions' read view with
 * those seen when the cached topology was converted: no counters to keep in step with
 * Lettuce, and no conversion while nothing changed.
 */
final class PartitionsCachingTopologyProvider implements ClusterTopologyProvider {

	private final ClusterTopologyProvider delegate;

	private final RedisClusterClient client;

	private final TopologyObserver observer;

	private volatile @Nullable Converted cached;

	PartitionsCachingTopologyProvider(ClusterTopologyProvider delegate, RedisClusterClient client,
			TopologyObserver observer) {
		this.delegate = delegate;
		this.client = client;
		this.observer = observer;
	}

	@Override
	public ClusterTopology getTopology() {
		Partitions partitions = this.client.getPartitions();
		Converted converted = this.cached;
		if (converted != null && converted.isOf(partitions)) {
			this.observer.lookup(true);
			return converted.topology();
		}
		this.observer.lookup(false);
		// Key first, then convert: if Lettuce reloads in between, the topology is newer
		// than its key and the next lookup converts again, never the other way round.
		RedisClusterNode[] nodes = partitions.toArray(new RedisClusterNode[0]);
		ClusterTopology topology = this.delegate.getTopology();
		this.cached = new Converted(nodes, topology);
		return topology;
	}

	private record Converted(RedisClusterNode[] nodes, ClusterTopology topology) {

		boolean isOf(Partitions partitions) {
			if (partitions.size() != this.nodes.length) {
				return false;
			}
			Iterator<RedisClusterNode> current = partitions.iterator();
			for (RedisClusterNode node : this.nodes) {
				if (!current.hasNext() || current.next() != node) {
					return false;
				}
			}
			return !current.hasNext();
		}

	}

}
