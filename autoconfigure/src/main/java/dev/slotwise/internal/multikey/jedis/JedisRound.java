package dev.slotwise.internal.multikey.jedis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import dev.slotwise.internal.multikey.NodeTransport;
import dev.slotwise.internal.multikey.NodeTransport.Request;
import dev.slotwise.internal.pool.BrokenJedisConnections;
import dev.slotwise.internal.pool.StaleJedisConnections;
import dev.slotwise.internal.routing.NodeAddress;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;

/**
 * One round of a Jedis multi-key call sent the way a hand-written cluster pipeline sends
 * it: the calling thread writes and flushes every small batch of the round, each on a
 * connection from its node's pool, before it reads any reply; the nodes work on their
 * batches at the same time while the caller reads them in turn. On the executor each
 * batch costs a hand-off to a thread and back (a wake-up on each side per node), which
 * was most of the gap between Slotwise over Jedis and the hand-written pipeline, and grew
 * with the number of masters (docs/scale.md).
 * <p>
 * The rules of a batch on the executor hold here for each batch:
 * <ul>
 * <li>the call's deadline bounds the pool borrow and every read
 * ({@link JedisBatchGuard}); a batch whose call ended is not written;</li>
 * <li>only a batch small enough for the socket's buffers is written here
 * ({@link JedisNodeTransport#inline}), so the write, which no timeout bounds, cannot hold
 * the caller on a node that stopped reading;</li>
 * <li>a connection its node closed while idle, found before any reply was read, sends the
 * batch once more on a fresh one ({@link StaleJedisConnections});</li>
 * <li>once a batch fails otherwise, the batches not yet written are not written (a failed
 * {@code mSet} writes nothing more), and the replies of those already written are read
 * only if they come within a short bound, so that their connections go back to their
 * pools; a connection with replies pending is destroyed instead, off the caller's
 * thread;</li>
 * <li>a batch is written here only when its node's pool has an idle connection: opening
 * one waits for the node's handshake, which only the socket timeout bounds, so that is
 * left to an executor thread.</li>
 * </ul>
 * Connections are borrowed in one order of nodes, so two callers each holding a
 * connection another waits for cannot wait on each other in a cycle. The futures complete
 * once every connection of the round is back in its pool: a redirect's next round, which
 * runs from a future's completion, never waits on a connection this round holds.
 */
final class JedisRound implements NodeTransport.Round {

	/**
	 * How long the replies of batches written before another failed may take to be
	 * drained, all together.
	 */
	private static final long DRAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

	private static final Comparator<Batch> NODE_ORDER = Comparator.comparing((Batch batch) -> batch.node.host())
		.thenComparingInt((batch) -> batch.node.port());

	private final JedisNodeTransport transport;

	private final int maxPerFlush;

	private final long deadline;

	private final List<Batch> held = new ArrayList<>();

	/**
	 * The failure after which nothing more of the round is written, nor read but to drain
	 * its connections.
	 */
	private @Nullable RuntimeException stop;

	/**
	 * The {@link System#nanoTime()} until which connections are drained after a failure;
	 * 0 until one.
	 */
	private long drainUntil;

	JedisRound(JedisNodeTransport transport, int maxPerFlush, long deadline) {
		this.transport = transport;
		this.maxPerFlush = maxPerFlush;
		this.deadline = deadline;
	}

	@Override
	public CompletableFuture<List<Object>> add(NodeAddress node, List<Request> requests) {
		JedisIdleConnections.Claim claim = this.transport.inline(requests, this.maxPerFlush)
				? this.transport.idleConnections().claim(node, this.transport.pool(node, requests)) : null;
		// Only an idle connection: a borrow that has to open one waits for the node's
		// handshake, which only the socket timeout bounds, not the call's deadline; an
		// executor thread waits for it instead.
		if (claim == null) {
			return this.transport.send(node, requests, this.maxPerFlush, this.deadline);
		}
		Batch batch = new Batch(node, requests, this.deadline, claim);
		this.held.add(batch);
		return batch.future;
	}

	@Override
	public void run() {
		if (this.held.isEmpty()) {
			return;
		}
		this.held.sort(NODE_ORDER);
		try {
			writeAll();
			readAll();
		}
		catch (RuntimeException | Error ex) {
			// Not a node's failure (those are caught per batch): end every batch not
			// answered yet with it.
			for (Batch batch : this.held) {
				if (batch.replies == null && batch.failure == null) {
					batch.failure = (ex instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex);
				}
			}
			this.stop = (this.stop != null) ? this.stop : new CancellationException("Round abandoned: " + ex);
		}
		finally {
			for (Batch batch : this.held) {
				batch.release(this.transport.releaser());
			}
		}
		sendStaleAgain();
		complete();
	}

	private void writeAll() {
		for (Batch batch : this.held) {
			if (this.stop != null) {
				return;
			}
			try {
				batch.guard.check();
				try {
					batch.connection = batch.attempt.borrowed(batch.guard.borrow(batch.pool));
				}
				finally {
					batch.releaseClaim();
				}
				batch.sent = JedisNodeTransport.write(batch.connection, batch.requests);
				// getMany(0) flushes and reads nothing (Connection.flush() is protected):
				// the node starts on its batch while the next node's is written.
				batch.connection.getMany(0);
			}
			catch (RuntimeException ex) {
				failed(batch, ex);
			}
		}
	}

	private void readAll() {
		for (Batch batch : this.held) {
			Connection connection = batch.connection;
			if (connection == null || batch.failure != null) {
				continue;
			}
			if (this.stop != null) {
				drain(batch, connection);
				continue;
			}
			try {
				batch.guard.check();
				batch.replies = read(batch, connection, this.deadline);
			}
			catch (RuntimeException ex) {
				failed(batch, ex);
			}
		}
	}

	/**
	 * Reads the replies of a batch written before another batch failed, if they are in
	 * within a short bound, so that its connection goes back to its pool: destroying it
	 * would cost a new connection, opened when a destroyed one is replaced. The replies
	 * are not used: the call failed.
	 */
	private void drain(Batch batch, Connection connection) {
		if (this.drainUntil == 0) {
			this.drainUntil = System.nanoTime() + DRAIN_NANOS;
		}
		try {
			read(batch, connection, this.drainUntil);
			batch.drained = true;
		}
		catch (RuntimeException ex) {
			// Not read in time, or the connection failed: it is destroyed, off the
			// caller's thread.
		}
	}

	/**
	 * Reads a written batch's replies, each read bounded by the given time.
	 * @param until the {@link System#nanoTime()} by which the replies must be in
	 */
	private static List<Object> read(Batch batch, Connection connection, long until) {
		batch.readTimeout = batch.guard.readTimeout(connection);
		batch.readTimeout.bound(until);
		List<Object> replies = new ArrayList<>(batch.requests.size());
		JedisNodeTransport.read(connection, batch.requests, batch.sent, batch.attempt, replies);
		return replies;
	}

	private void failed(Batch batch, RuntimeException ex) {
		batch.failure = ex;
		if (!batch.attempt.allowsAnother(ex)) {
			this.stop = ex;
		}
	}

	/**
	 * Sends each batch that met a connection its node had closed once more, alone, on a
	 * fresh connection, as the executor's path does; after another batch's failure there
	 * is no point.
	 */
	private void sendStaleAgain() {
		for (Batch batch : this.held) {
			RuntimeException failure = batch.failure;
			if (this.stop != null || failure == null) {
				continue;
			}
			try {
				batch.replies = StaleJedisConnections.again(batch.pool, batch.attempt, failure,
						(attempt) -> this.transport.sendOnce(batch.pool, batch.requests, this.maxPerFlush,
								JedisReadRouting.Session.NONE, batch.guard, attempt));
				batch.failure = null;
			}
			catch (RuntimeException ex) {
				batch.failure = ex;
				this.stop = ex;
			}
		}
	}

	private void complete() {
		// The failure first: the call ends with it, and ignores what completes after it.
		RuntimeException stopped = this.stop;
		if (stopped != null) {
			for (Batch batch : this.held) {
				if (batch.failure == stopped) {
					batch.future.completeExceptionally(stopped);
				}
			}
		}
		for (Batch batch : this.held) {
			List<Object> replies = batch.replies;
			if (replies != null) {
				batch.future.complete(replies);
			}
			else if (batch.failure != null) {
				batch.future.completeExceptionally(batch.failure);
			}
			else {
				// Not written, or written and not read, because another batch of the
				// round failed (completed above).
				batch.future.completeExceptionally(new CancellationException(
						"Batch for " + batch.node + " not sent or not read: another node's batch failed"));
			}
		}
	}

	/**
	 * One batch of the round and the connection it holds until the round ends.
	 */
	private static final class Batch {

		private final NodeAddress node;

		private final List<Request> requests;

		private final CompletableFuture<List<Object>> future = new CompletableFuture<>();

		private final JedisBatchGuard guard;

		private final StaleJedisConnections.Attempt attempt = StaleJedisConnections.firstAttempt();

		private final ConnectionPool pool;

		/**
		 * The idle connection claimed in the pool, until the batch borrowed one (or was
		 * not written).
		 */
		private JedisIdleConnections.@Nullable Claim claim;

		private @Nullable Connection connection;

		private JedisBatchGuard.@Nullable ReadTimeout readTimeout;

		private int sent;

		private @Nullable List<Object> replies;

		/**
		 * Whether the replies were read after the round failed: the connection is sound,
		 * the replies unused.
		 */
		private boolean drained;

		private @Nullable RuntimeException failure;

		Batch(NodeAddress node, List<Request> requests, long deadline, JedisIdleConnections.Claim claim) {
			this.node = node;
			this.requests = requests;
			this.guard = new JedisBatchGuard(node, this.future, deadline);
			this.claim = claim;
			this.pool = claim.pool();
		}

		void releaseClaim() {
			JedisIdleConnections.Claim held = this.claim;
			if (held != null) {
				this.claim = null;
				held.release();
			}
		}

		/**
		 * Gives the connection back: to its pool when every reply of the batch was read,
		 * destroyed otherwise (its unread replies would be read as the next borrower's).
		 * A broken connection goes back to its pool on the releaser's thread
		 * ({@link BrokenJedisConnections}), and its socket is closed here.
		 */
		void release(Executor releaser) {
			// A batch not written (another failed first) never borrowed: its claim ends
			// here.
			releaseClaim();
			Connection held = this.connection;
			if (held == null) {
				return;
			}
			this.connection = null;
			if (this.replies == null && !this.drained) {
				held.setBroken();
			}
			try {
				JedisBatchGuard.ReadTimeout bound = this.readTimeout;
				if (bound != null) {
					bound.close();
				}
			}
			catch (RuntimeException ex) {
				held.setBroken();
			}
			if (held.isBroken()) {
				BrokenJedisConnections.returnOffThread(held, this.pool, releaser);
			}
			giveBack(held);
		}

		/**
		 * Returns the connection to its pool, or only closes its socket once detached
		 * from it. Closing may fail when the pool is gone (Jedis closes the pool of a
		 * node its slot table dropped, a killed master): the batch's replies stand, and
		 * the connection's socket is closed here instead.
		 */
		private static void giveBack(Connection connection) {
			try {
				connection.close();
			}
			catch (RuntimeException ex) {
				try {
					connection.disconnect();
				}
				catch (RuntimeException ignored) {
					// Already closed.
				}
			}
		}

	}

}
