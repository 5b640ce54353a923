package dev.slotwise.internal.multikey.jedis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.IntFunction;

import dev.slotwise.internal.multikey.MultiKeyCommand;
import dev.slotwise.internal.multikey.NodeTransport;
import dev.slotwise.internal.compat.JedisNodePools;
import dev.slotwise.internal.pool.StaleJedisConnections;
import dev.slotwise.internal.routing.Chunks;
import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.SlotTable;
import dev.slotwise.internal.topology.RefreshableTopologyProvider;
import dev.slotwise.multikey.MultiKeyReadFrom;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.exceptions.JedisDataException;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.jedis.JedisExceptionConverter;

/**
 * Sends node batches over connections borrowed from Jedis's per-node pools, one batch per
 * task on the {@link MultiKeyExecutor}. Slot owners come from the connection factory's
 * topology provider, kept as a {@link SlotTable} for as long as the provider returns the
 * same topology.
 */
public final class JedisNodeTransport implements NodeTransport {

	/** Jedis's command for each of ours, resolved once. */
	private static final Map<MultiKeyCommand, Protocol.Command> PROTOCOL_COMMANDS = protocolCommands();

	/**
	 * The call timeout a transport built without one assumes: the default of
	 * {@code slotwise.multikey.timeout}.
	 */
	static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(5);

	/**
	 * Spring Data Redis's translation of Jedis's exceptions, which the call's failures
	 * follow.
	 */
	private static final JedisExceptionConverter EXCEPTIONS = new JedisExceptionConverter();

	/**
	 * The default of {@code slotwise.multikey.jedis-executor.inline-batch-size}: a batch
	 * this small fits a socket's buffers, so writing it never blocks the caller on a node
	 * that stopped reading.
	 */
	static final long DEFAULT_INLINE_BATCH_BYTES = 32 * 1024;

	/**
	 * Far enough never to come, near enough not to overflow {@link System#nanoTime()}
	 * arithmetic.
	 */
	private static final long NO_DEADLINE = Long.MAX_VALUE / 4;

	private final RedisClusterClient client;

	private final ClusterTopologyProvider topologyProvider;

	private final Executor executor;

	private final JedisReadRouting reads;

	/** The idle connections the calling thread may borrow in a {@link JedisRound}. */
	private final JedisIdleConnections idleConnections = new JedisIdleConnections();

	/**
	 * Gives broken connections back to their pools off the calling thread (see
	 * {@link JedisRound}).
	 */
	private final Executor releaser;

	/**
	 * The largest batch written by the calling thread in a {@link JedisRound}; 0 sends
	 * every batch on the executor.
	 */
	private final long inlineBatchBytes;

	private volatile @Nullable Routing routing;

	JedisNodeTransport(RedisClusterClient client, ClusterTopologyProvider topologyProvider, Executor executor) {
		// Reads stay on masters: nothing is ever released off the batch's thread.
		this(client, topologyProvider, executor, MultiKeyReadFrom.MASTER, DEFAULT_CALL_TIMEOUT, executor,
				DEFAULT_INLINE_BATCH_BYTES);
	}

	/**
	 * @param releaser returns broken replica connections to their pools off the batch's
	 * thread
	 * @param inlineBatchBytes the largest batch the calling thread writes itself, with
	 * the round's other small batches, before it reads any reply ({@link JedisRound}); 0
	 * sends every batch on the executor
	 */
	public JedisNodeTransport(RedisClusterClient client, ClusterTopologyProvider topologyProvider, Executor executor,
			MultiKeyReadFrom readFrom, Duration callTimeout, Executor releaser, long inlineBatchBytes) {
		this.client = client;
		this.inlineBatchBytes = inlineBatchBytes;
		this.releaser = releaser;
		this.topologyProvider = topologyProvider;
		this.executor = executor;
		// Replicas are chosen from the topology the engine last routed by: never a
		// refresh on an executor thread.
		this.reads = new JedisReadRouting(readFrom, () -> {
			Routing current = this.routing;
			return (current != null) ? current.topology : topologyProvider.getTopology();
		}, client, callTimeout, releaser);
	}

	@Override
	public @Nullable DataAccessException translate(Throwable failure) {
		return (failure instanceof Exception ex) ? EXCEPTIONS.convert(ex) : null;
	}

	@Override
	public boolean errorRepliesAreApiUsageErrors() {
		return true;
	}

	@Override
	public IntFunction<@Nullable NodeAddress> router() {
		ClusterTopology topology = this.topologyProvider.getTopology();
		Routing current = this.routing;
		if (current == null || current.topology != topology) {
			current = new Routing(topology, table(topology, this.client.getClusterNodes().keySet()));
			this.routing = current;
		}
		return current.table::owner;
	}

	private static SlotTable table(ClusterTopology topology, Set<String> pools) {
		Map<NodeAddress, int[]> slots = new HashMap<>();
		for (RedisClusterNode master : topology.getActiveMasterNodes()) {
			NodeAddress address = JedisNodePools.address(master, pools);
			if (address != null) {
				slots.put(address, master.getSlotRange().getSlotsArray());
			}
		}
		return SlotTable.of(slots);
	}

	@Override
	public CompletableFuture<List<Object>> send(NodeAddress node, List<Request> requests, int maxPerFlush) {
		return send(node, requests, maxPerFlush, System.nanoTime() + NO_DEADLINE);
	}

	/**
	 * Runs the batch on the executor. The returned future is the batch's own: its
	 * cancellation (the call failed or timed out) stops the batch at its next window, and
	 * a batch still queued at that point never starts. Reads may go to a replica first
	 * ({@code slotwise.multikey.read-from}): {@link JedisReadRouting} picks the node and
	 * falls back to the master, within the same deadline.
	 */
	@Override
	public CompletableFuture<List<Object>> send(NodeAddress node, List<Request> requests, int maxPerFlush,
			long deadline) {
		CompletableFuture<List<Object>> batch = new CompletableFuture<>();
		this.executor.execute(MultiKeyExecutor.bounded(() -> {
			try {
				batch.complete(this.reads.send(node, requests, (target, session) -> sendNow(target, requests,
						maxPerFlush, session, new JedisBatchGuard(target, batch, deadline))));
			}
			catch (RuntimeException | Error ex) {
				batch.completeExceptionally(ex);
			}
		}, deadline));
		return batch;
	}

	/**
	 * A round whose small batches the calling thread writes to every node before it reads
	 * any reply ({@link JedisRound}); larger ones, and reads that may go to a replica,
	 * run on the executor as before.
	 */
	@Override
	public Round round(int maxPerFlush, long deadline) {
		return (this.inlineBatchBytes > 0) ? new JedisRound(this, maxPerFlush, deadline)
				: NodeTransport.super.round(maxPerFlush, deadline);
	}

	Executor releaser() {
		return this.releaser;
	}

	JedisIdleConnections idleConnections() {
		return this.idleConnections;
	}

	/**
	 * Returns whether the calling thread may write a batch itself in a
	 * {@link JedisRound}: it goes to the node it was routed to (no replica), in one
	 * window, and is small enough to fit the socket's buffers, so the write cannot block
	 * on a node that stopped reading (the reads are bounded by the call's deadline, the
	 * writes are not).
	 */
	boolean inline(List<Request> requests, int maxPerFlush) {
		if (requests.size() > maxPerFlush || !this.reads.mastersOnly(requests)) {
			return false;
		}
		// RESP framing: "*n\r\n" per command, "$len\r\n...\r\n" per argument; 16 bytes
		// each is an upper bound.
		long bytes = 0;
		for (Request request : requests) {
			bytes += 32;
			for (byte[] arg : request.args()) {
				bytes += arg.length + 16;
			}
			if (bytes > this.inlineBatchBytes) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Sends the batch on a connection from the node's pool; when that connection turns
	 * out closed by the node before any reply of the batch was read, once more on a fresh
	 * one ({@link StaleJedisConnections}, which says why this is no worse than plain
	 * Boot). Both attempts keep to the call's deadline: the guard checks it before
	 * borrowing.
	 */
	private List<Object> sendNow(NodeAddress node, List<Request> requests, int maxPerFlush,
			JedisReadRouting.Session session, JedisBatchGuard guard) {
		ConnectionPool pool = pool(node, requests);
		return StaleJedisConnections.send(pool,
				(attempt) -> sendOnce(pool, requests, maxPerFlush, session, guard, attempt));
	}

	List<Object> sendOnce(ConnectionPool pool, List<Request> requests, int maxPerFlush,
			JedisReadRouting.Session session, JedisBatchGuard guard, StaleJedisConnections.Attempt attempt) {
		List<Object> replies = new ArrayList<>(requests.size());
		guard.check();
		// Closed in reverse: the deadline's read bound, then the session (a replica's
		// READONLY and shorter timeout), then the connection goes back to its pool
		// (destroyed when broken).
		try (Connection connection = attempt.borrowed(guard.borrow(pool));
				JedisReadRouting.Restore prepared = session.open(connection);
				JedisBatchGuard.ReadTimeout reads = guard.readTimeout(connection)) {
			for (List<Request> window : Chunks.of(requests, maxPerFlush)) {
				// A window boundary: what a failed or late call has not written yet, it
				// must not write.
				guard.check();
				reads.bound();
				int sent = write(connection, window);
				read(connection, window, sent, attempt, replies);
			}
		}
		return replies;
	}

	/**
	 * Writes one window of requests into the connection's buffer (Jedis flushes it when
	 * full, and before a read).
	 * @return the number of commands written, {@code ASKING} included
	 */
	static int write(Connection connection, List<Request> window) {
		int sent = 0;
		for (Request request : window) {
			if (request.asking()) {
				connection.sendCommand(Protocol.Command.ASKING);
				sent++;
			}
			CommandArguments args = new CommandArguments(PROTOCOL_COMMANDS.get(request.command()));
			for (byte[] arg : request.args()) {
				args.add(arg);
			}
			connection.sendCommand(args);
			sent++;
		}
		return sent;
	}

	/**
	 * Reads the replies of a window {@link #write written} to the connection, one per
	 * request.
	 * @param sent the number of commands written
	 * @param attempt the batch's attempt: only a connection failure before any reply
	 * allows a second one
	 * @param replies receives the replies, in order
	 */
	static void read(Connection connection, List<Request> window, int sent, StaleJedisConnections.Attempt attempt,
			List<Object> replies) {
		List<Object> raw = new ArrayList<>(sent);
		// The first reply on its own: only a connection failure before any reply allows a
		// second attempt.
		raw.add(attempt.read(connection));
		// getMany reads the rest; error replies come back as exceptions in the list.
		raw.addAll(connection.getMany(sent - 1));
		int index = 0;
		for (Request request : window) {
			if (request.asking() && raw.get(index++) instanceof JedisDataException refused) {
				// ASKING refused (NOPERM for a user without it): without it the command
				// only meets MOVED again, so the refusal is the command's reply.
				replies.add(decode(refused, request.command()));
				index++;
				continue;
			}
			replies.add(decode(raw.get(index++), request.command()));
		}
	}

	ConnectionPool pool(NodeAddress node, List<Request> requests) {
		return JedisNodePools.forAddress(this.client, node, requests.get(0).args()[0]);
	}

	private static @Nullable Object decode(@Nullable Object raw, MultiKeyCommand command) {
		if (raw instanceof JedisDataException error) {
			return new ErrorReply(String.valueOf(error.getMessage()));
		}
		if (raw instanceof byte[] status && command.reply() == MultiKeyCommand.Reply.STATUS) {
			return new String(status, StandardCharsets.US_ASCII);
		}
		return raw;
	}

	private static Map<MultiKeyCommand, Protocol.Command> protocolCommands() {
		Map<MultiKeyCommand, Protocol.Command> commands = new EnumMap<>(MultiKeyCommand.class);
		for (MultiKeyCommand command : MultiKeyCommand.values()) {
			commands.put(command, Protocol.Command.valueOf(command.name()));
		}
		return commands;
	}

	/**
	 * Not supported: a Jedis node batch holds a thread, which the call's deadline ends,
	 * so the Jedis engine runs no call that needs a timer.
	 */
	@Override
	public Runnable schedule(Runnable task, long delayNanos) {
		throw new UnsupportedOperationException("The Jedis engine runs no asynchronous multi-key calls");
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
