package dev.slotwise.internal.pubsub;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import dev.slotwise.internal.routing.NodeAddress;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.event.connection.ConnectionDeactivatedEvent;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

/**
 * {@link NodeLinks} over a Lettuce cluster client: each link is the node connection of a
 * cluster pub/sub connection of its own, and a link whose node connection drops
 * (Lettuce's {@code ConnectionDeactivatedEvent} for its node) is reported lost. The
 * masters are read with {@code CLUSTER NODES} on one node at a time, through the
 * application's cluster connection: Lettuce's own partitions change only on its refresh
 * triggers, which a listening application (it sends no commands) never pulls, so a
 * graceful failover would go unseen.
 */
final class LettuceNodeLinks implements NodeLinks {

	private final RedisClusterClient client;

	private final Supplier<StatefulRedisClusterConnection<byte[], byte[]>> commands;

	private final PubSubRuntime runtime;

	private final Set<LettuceNodeLink> links = ConcurrentHashMap.newKeySet();

	private @Nullable Disposable watch;

	private boolean closed;

	private @Nullable Masters last;

	LettuceNodeLinks(RedisClusterClient client, Supplier<StatefulRedisClusterConnection<byte[], byte[]>> commands,
			PubSubRuntime runtime) {
		this.client = client;
		this.commands = commands;
		this.runtime = runtime;
	}

	@Override
	public NodeLink open(NodeAddress node, NodeLink.Events events) {
		watchConnections();
		StatefulRedisClusterPubSubConnection<byte[], byte[]> owner = this.client.connectPubSub(ByteArrayCodec.INSTANCE);
		try {
			StatefulRedisPubSubConnection<byte[], byte[]> connection;
			try {
				connection = owner.getConnection(node.host(), node.port());
			}
			catch (IllegalArgumentException | RedisException ex) {
				// Lettuce connects only to nodes of its partitions: a master just added
				// or promoted may not be there yet.
				if (known(owner.getPartitions(), node)) {
					throw ex;
				}
				this.client.refreshPartitions();
				connection = owner.getConnection(node.host(), node.port());
			}
			LettuceNodeLink link = new LettuceNodeLink(node, owner, connection, events);
			this.links.add(link);
			return link;
		}
		catch (RuntimeException ex) {
			owner.closeAsync();
			throw ex;
		}
	}

	private synchronized void watchConnections() {
		if (this.watch == null && !this.closed) {
			this.watch = this.client.getResources()
				.eventBus()
				.get()
				.filter((event) -> event instanceof ConnectionDeactivatedEvent)
				.subscribe((event) -> deactivated((ConnectionDeactivatedEvent) event));
		}
	}

	private void deactivated(ConnectionDeactivatedEvent event) {
		this.links.removeIf((link) -> !link.isOpen());
		String endpoint = LettuceEndpointIds.of(event);
		for (LettuceNodeLink link : this.links) {
			if (endpoint != null) {
				if (endpoint.equals(link.endpointId())) {
					link.lost();
				}
			}
			else if (event.remoteAddress() instanceof InetSocketAddress remote && sameNode(link.node(), remote)) {
				link.lost();
			}
		}
	}

	private static boolean sameNode(NodeAddress node, InetSocketAddress remote) {
		return node.port() == remote.getPort() && (node.host().equals(remote.getHostString())
				|| (remote.getAddress() != null && node.host().equals(remote.getAddress().getHostAddress())));
	}

	private static boolean known(Partitions partitions, NodeAddress node) {
		for (RedisClusterNode candidate : partitions) {
			RedisURI uri = candidate.getUri();
			if (uri != null && uri.getHost().equals(node.host()) && uri.getPort() == node.port()) {
				return true;
			}
		}
		return false;
	}

	@Override
	public Masters masters(boolean fresh) {
		StatefulRedisClusterConnection<byte[], byte[]> connection = this.commands.get();
		Masters last = this.last;
		if (!fresh && last != null) {
			return last;
		}
		List<RedisClusterNode> candidates = new ArrayList<>(connection.getPartitions().getPartitions());
		Collections.shuffle(candidates);
		RuntimeException failure = null;
		long timeout = this.runtime.timeout().toNanos();
		for (RedisClusterNode candidate : candidates) {
			RedisURI uri = candidate.getUri();
			if (uri == null || candidate.is(RedisClusterNode.NodeFlag.FAIL)) {
				continue;
			}
			try {
				String nodes = connection.getConnectionAsync(uri.getHost(), uri.getPort())
					.thenCompose((node) -> node.async().clusterNodes())
					.get(timeout, TimeUnit.NANOSECONDS);
				Masters masters = masters(ClusterPartitionParser.parse(nodes));
				this.last = masters;
				return masters;
			}
			catch (ExecutionException | TimeoutException | RuntimeException ex) {
				failure = new IllegalStateException("CLUSTER NODES failed on " + uri.getHost() + ":" + uri.getPort(),
						ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted", ex);
			}
		}
		throw (failure != null) ? failure : new IllegalStateException("No known node to read the topology from");
	}

	private static Masters masters(Partitions partitions) {
		Map<NodeAddress, int[]> slots = new LinkedHashMap<>();
		Set<NodeAddress> others = new HashSet<>();
		for (RedisClusterNode node : partitions) {
			RedisURI uri = node.getUri();
			if (uri == null) {
				continue;
			}
			NodeAddress address = new NodeAddress(uri.getHost(), uri.getPort());
			if (!node.is(RedisClusterNode.NodeFlag.UPSTREAM) || node.is(RedisClusterNode.NodeFlag.FAIL)
					|| node.getSlots().isEmpty()) {
				others.add(address);
				continue;
			}
			slots.put(address, node.getSlots().stream().mapToInt(Integer::intValue).toArray());
		}
		return Masters.of(slots, others);
	}

	@Override
	public synchronized void close() {
		this.closed = true;
		Disposable watch = this.watch;
		this.watch = null;
		if (watch != null) {
			watch.dispose();
		}
		this.links.clear();
	}

}
