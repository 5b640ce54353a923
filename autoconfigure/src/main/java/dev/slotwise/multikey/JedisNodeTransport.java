package dev.slotwise.multikey;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.IntFunction;

import dev.slotwise.routing.Chunks;
import dev.slotwise.routing.NodeAddress;
import dev.slotwise.routing.SlotTable;
import dev.slotwise.topology.RefreshableTopologyProvider;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.exceptions.JedisDataException;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.RedisClusterNode;

/**
 * Sends node batches over connections borrowed from Jedis's per-node pools, one batch per task on the
 * {@link MultiKeyExecutor}. Slot owners come from the connection factory's topology provider, kept as a
 * {@link SlotTable} for as long as the provider returns the same topology.
 */
final class JedisNodeTransport implements NodeTransport {

	private final RedisClusterClient client;

	private final ClusterTopologyProvider topologyProvider;

	private final Executor executor;

	private volatile @Nullable Routing routing;

	JedisNodeTransport(RedisClusterClient client, ClusterTopologyProvider topologyProvider, Executor executor) {
		this.client = client;
		this.topologyProvider = topologyProvider;
		this.executor = executor;
	}

	@Override
	public IntFunction<@Nullable NodeAddress> router() {
		ClusterTopology topology = this.topologyProvider.getTopology();
		Routing current = this.routing;
		if (current == null || current.topology != topology) {
			current = new Routing(topology, table(topology));
			this.routing = current;
		}
		return current.table::owner;
	}

	private static SlotTable table(ClusterTopology topology) {
		Map<NodeAddress, int[]> slots = new HashMap<>();
		for (RedisClusterNode master : topology.getActiveMasterNodes()) {
			if (master.getHost() != null && master.getPort() != null) {
				slots.put(new NodeAddress(master.getHost(), master.getPort()), master.getSlotRange().getSlotsArray());
			}
		}
		return SlotTable.of(slots);
	}

	@Override
	public CompletableFuture<List<Object>> send(NodeAddress node, List<Request> requests, int maxPerFlush) {
		return CompletableFuture.supplyAsync(() -> sendNow(node, requests, maxPerFlush), this.executor);
	}

	private List<Object> sendNow(NodeAddress node, List<Request> requests, int maxPerFlush) {
		List<Object> replies = new ArrayList<>(requests.size());
		try (Connection connection = pool(node, requests).getResource()) {
			for (List<Request> window : Chunks.of(requests, maxPerFlush)) {
				int sent = 0;
				for (Request request : window) {
					if (request.asking()) {
						connection.sendCommand(Protocol.Command.ASKING);
						sent++;
					}
					CommandArguments args = new CommandArguments(Protocol.Command.valueOf(request.command()));
					for (byte[] arg : request.args()) {
						args.add(arg);
					}
					connection.sendCommand(args);
					sent++;
				}
				// getMany flushes once, then reads every reply; error replies come back as exceptions in the list.
				List<Object> raw = connection.getMany(sent);
				int index = 0;
				for (Request request : window) {
					if (request.asking()) {
						index++;
					}
					replies.add(convert(raw.get(index++), request.command()));
				}
			}
		}
		return replies;
	}

	private ConnectionPool pool(NodeAddress node, List<Request> requests) {
		String key = node.toString();
		ConnectionPool pool = this.client.getClusterNodes().get(key);
		if (pool == null) {
			// A node Jedis has not seen yet (a redirect to a new master): one keyed command through the client
			// follows the redirect and makes Jedis renew its slot cache, which creates the node's pool.
			this.client.exists(requests.get(0).args()[0]);
			pool = this.client.getClusterNodes().get(key);
		}
		if (pool == null) {
			throw new DataAccessResourceFailureException("Node " + key + " is unknown to the Jedis cluster client");
		}
		return pool;
	}

	private static @Nullable Object convert(@Nullable Object raw, String command) {
		if (raw instanceof JedisDataException error) {
			return new ErrorReply(String.valueOf(error.getMessage()));
		}
		if (raw instanceof byte[] status && (command.equals("MSET") || command.equals("SET"))) {
			return new String(status, StandardCharsets.US_ASCII);
		}
		return raw;
	}

	@Override
	public void invalidateTopology() {
		if (this.topologyProvider instanceof RefreshableTopologyProvider refreshable) {
			refreshable.invalidate();
		}
	}

	private record Routing(ClusterTopology topology, SlotTable table) {
	}

}
