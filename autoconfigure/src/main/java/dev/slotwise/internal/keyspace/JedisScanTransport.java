package dev.slotwise.internal.keyspace;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

import dev.slotwise.internal.compat.JedisNodePools;
import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.topology.RefreshableTopologyProvider;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.exceptions.JedisDataException;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.data.redis.connection.ClusterTopologyProvider;

/**
 * Sends the walks' commands over connections borrowed from Jedis's per-node pools, one
 * task per command (or per pipelined group) on the multi-key executor; a connection goes
 * back to its pool as soon as its reply is read, so a scan holds none between pages and
 * none after {@code close()}.
 */
final class JedisScanTransport implements ScanTransport {

	/**
	 * The task that this transport's running task on this thread started, to run next on
	 * the same thread.
	 */
	private final ThreadLocal<Continuation> continuation = new ThreadLocal<>();

	private static final int MAX_CONTINUATIONS = 64;

	private final RedisClusterClient client;

	private final ClusterTopologyProvider topologyProvider;

	private final Executor executor;

	private final boolean readFromReplicas;

	JedisScanTransport(RedisClusterClient client, ClusterTopologyProvider topologyProvider, Executor executor,
			boolean readFromReplicas) {
		this.client = client;
		this.topologyProvider = topologyProvider;
		this.executor = executor;
		this.readFromReplicas = readFromReplicas;
	}

	@Override
	public List<NodeAddress> seeds() {
		List<NodeAddress> seeds = new ArrayList<>();
		for (String key : this.client.getClusterNodes().keySet()) {
			seeds.add(NodeAddress.parse(key));
		}
		return seeds;
	}

	@Override
	public CompletableFuture<String> clusterNodes(ClusterNodes.Node node) {
		return run(pool(node), (connection) -> {
			connection.sendCommand(Protocol.Command.CLUSTER, "NODES");
			return text(connection.getOne());
		});
	}

	@Override
	public CompletableFuture<String> clusterNodes(NodeAddress address) {
		return run(() -> JedisNodePools.forEndpoint(this.client, address, null), (connection) -> {
			connection.sendCommand(Protocol.Command.CLUSTER, "NODES");
			return text(connection.getOne());
		});
	}

	@Override
	public CompletableFuture<Page> scan(ClusterNodes.Node node, String cursor, byte @Nullable [] match,
			@Nullable Long count, @Nullable String type) {
		List<byte[]> args = new ArrayList<>(7);
		args.add(cursor.getBytes(StandardCharsets.US_ASCII));
		if (match != null) {
			args.add(Protocol.Keyword.MATCH.getRaw());
			args.add(match);
		}
		if (count != null) {
			args.add(Protocol.Keyword.COUNT.getRaw());
			args.add(String.valueOf(count).getBytes(StandardCharsets.US_ASCII));
		}
		if (type != null) {
			args.add(Protocol.Keyword.TYPE.getRaw());
			args.add(type.getBytes(StandardCharsets.US_ASCII));
		}
		return run(pool(node), (connection) -> {
			connection.sendCommand(Protocol.Command.SCAN, args.toArray(new byte[0][]));
			List<?> reply = (List<?>) connection.getOne();
			@SuppressWarnings("unchecked")
			List<byte[]> keys = (List<byte[]>) reply.get(1);
			return new Page(text(reply.get(0)), keys);
		});
	}

	@Override
	public CompletableFuture<List<TypedKey>> keysInSlots(ClusterNodes.Node node, int[] slots, boolean withTypes) {
		return run(pool(node), (connection) -> {
			for (int slot : slots) {
				connection.sendCommand(Protocol.Command.CLUSTER, "COUNTKEYSINSLOT", String.valueOf(slot));
			}
			List<Object> counts = connection.getMany(slots.length);
			int sent = 0;
			for (int i = 0; i < slots.length; i++) {
				long count = (Long) checked(counts.get(i));
				if (count > 0) {
					// A few more than counted: keys written meanwhile; a key present
					// throughout was counted.
					connection.sendCommand(Protocol.Command.CLUSTER, "GETKEYSINSLOT", String.valueOf(slots[i]),
							String.valueOf(count + 16));
					sent++;
				}
			}
			List<TypedKey> found = new ArrayList<>();
			for (Object reply : connection.getMany(sent)) {
				@SuppressWarnings("unchecked")
				List<byte[]> keys = (List<byte[]>) checked(reply);
				for (byte[] key : keys) {
					found.add(new TypedKey(key, null));
				}
			}
			if (!withTypes || found.isEmpty()) {
				return found;
			}
			for (TypedKey key : found) {
				connection.sendCommand(Protocol.Command.TYPE, key.key());
			}
			List<Object> types = connection.getMany(found.size());
			List<TypedKey> typed = new ArrayList<>(found.size());
			for (int i = 0; i < found.size(); i++) {
				typed.add(new TypedKey(found.get(i).key(), text(checked(types.get(i)))));
			}
			return typed;
		});
	}

	@Override
	public CompletableFuture<boolean[]> unlink(ClusterNodes.Node node, List<byte[][]> groups) {
		return run(pool(node), (connection) -> {
			for (byte[][] keys : groups) {
				connection.sendCommand(Protocol.Command.UNLINK, keys);
			}
			List<Object> replies = connection.getMany(groups.size());
			boolean[] removed = new boolean[groups.size()];
			for (int i = 0; i < removed.length; i++) {
				removed[i] = replies.get(i) instanceof Long;
			}
			return removed;
		});
	}

	@Override
	public CompletableFuture<List<byte[]>> keys(ClusterNodes.Node node, byte[] pattern) {
		return run(pool(node), (connection) -> {
			connection.sendCommand(Protocol.Command.KEYS, pattern);
			@SuppressWarnings("unchecked")
			List<byte[]> keys = (List<byte[]>) connection.getOne();
			return keys;
		});
	}

	@Override
	public void invalidateTopology() {
		RefreshableTopologyProvider.invalidateIfCaching(this.topologyProvider);
	}

	@Override
	public boolean readFromReplicas() {
		return this.readFromReplicas;
	}

	private java.util.function.Supplier<ConnectionPool> pool(ClusterNodes.Node node) {
		return () -> {
			NodeAddress address = node.address();
			if (address == null) {
				throw new DataAccessResourceFailureException("Node " + node.id() + " has no address");
			}
			return JedisNodePools.forEndpoint(this.client, address, node.hostname());
		};
	}

	private <T> CompletableFuture<T> run(java.util.function.Supplier<ConnectionPool> pool,
			Function<Connection, T> command) {
		CompletableFuture<T> result = new CompletableFuture<>();
		try {
			execute(() -> {
				try (Connection connection = pool.get().getResource()) {
					result.complete(command.apply(connection));
				}
				catch (JedisDataException ex) {
					result.completeExceptionally(new ServerError(String.valueOf(ex.getMessage()), ex));
				}
				catch (RuntimeException | Error ex) {
					result.completeExceptionally(ex);
				}
			});
		}
		catch (RuntimeException ex) {
			result.completeExceptionally(ex);
		}
		return result;
	}

	/**
	 * Runs a task on the executor, or, when a task of this transport running on this
	 * thread started it (a page's completion asking for the walk's next page), right
	 * after that task on the same thread: a new task per page is a hand-over to another
	 * thread (a queue and, when that thread sleeps, a wake-up) per {@code SCAN}; at count
	 * 10 the difference was within the noise of the benchmark on two cores
	 * (docs/keyspace.md). Only the first task a task starts continues on its thread (the
	 * others, other walks' pages or a clear's removals, go to the executor and run in
	 * parallel), and at most {@value #MAX_CONTINUATIONS} in a row, so that a long walk
	 * does not keep a thread of the multi-key executor from the calls queued behind it.
	 */
	private void execute(Runnable task) {
		Continuation here = this.continuation.get();
		if (here != null && here.next == null && here.ran < MAX_CONTINUATIONS) {
			here.next = task;
			return;
		}
		this.executor.execute(() -> {
			Continuation chain = new Continuation();
			this.continuation.set(chain);
			try {
				for (Runnable next = task; next != null; next = chain.next) {
					chain.next = null;
					next.run();
					chain.ran++;
				}
			}
			finally {
				this.continuation.remove();
			}
		});
	}

	private static Object checked(Object reply) {
		if (reply instanceof JedisDataException error) {
			throw error;
		}
		return reply;
	}

	private static String text(@Nullable Object reply) {
		if (reply instanceof byte[] bytes) {
			return new String(bytes, StandardCharsets.UTF_8);
		}
		return String.valueOf(reply);
	}

	private static final class Continuation {

		private @Nullable Runnable next;

		private int ran;

	}

}
