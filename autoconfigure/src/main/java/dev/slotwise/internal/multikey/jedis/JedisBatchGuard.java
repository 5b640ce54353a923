package dev.slotwise.internal.multikey.jedis;

import java.time.Duration;
import java.util.NoSuchElementException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.slotwise.internal.routing.NodeAddress;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;

/**
 * Keeps one Jedis node batch within its call: the batch stops when the call ended (its
 * future was cancelled or completed: the call failed, or timed out) or when the call's
 * deadline passed, checked before the pool borrow and at every window boundary, so that a
 * failed {@code mSet}/{@code del} writes no further window. It also bounds the batch's
 * waits by the deadline: the pool borrow (never a non-positive wait, which commons-pool
 * takes as "wait forever") and the socket reads, so that a stalled node frees the
 * executor thread at the deadline rather than at the socket timeout.
 */
final class JedisBatchGuard {

	private final NodeAddress node;

	private final CompletableFuture<?> batch;

	private final long deadline;

	/**
	 * @param node the batch's node, for messages
	 * @param batch the batch's future, which the call cancels when it ends without it
	 * @param deadline the {@link System#nanoTime()} by which the call must end
	 */
	JedisBatchGuard(NodeAddress node, CompletableFuture<?> batch, long deadline) {
		this.node = node;
		this.batch = batch;
		this.deadline = deadline;
	}

	/**
	 * Throws when the batch must not write anything more.
	 * @throws CancellationException when the call ended
	 * @throws QueryTimeoutException when the call's deadline passed
	 */
	void check() {
		if (this.batch.isDone()) {
			throw new CancellationException("Batch for " + this.node + " abandoned: its multi-key call ended");
		}
		if (left() <= 0) {
			throw new QueryTimeoutException("Batch for " + this.node
					+ " abandoned: the multi-key call's deadline (slotwise.multikey.timeout) passed");
		}
	}

	/**
	 * Borrows a connection, waiting no longer than the pool's {@code max-wait} nor than
	 * the call's deadline.
	 * @param pool the node's pool
	 * @return the connection, which returns to the pool when closed
	 */
	Connection borrow(ConnectionPool pool) {
		check();
		// Never hand commons-pool a non-positive wait: it would block until a connection
		// frees up.
		Duration wait = Duration.ofNanos(Math.max(TimeUnit.MILLISECONDS.toNanos(1), left()));
		Duration maxWait = pool.getMaxWaitDuration();
		if (!maxWait.isNegative() && !maxWait.isZero() && maxWait.compareTo(wait) < 0) {
			wait = maxWait;
		}
		Connection connection;
		try {
			connection = pool.borrowObject(wait);
		}
		catch (NoSuchElementException ex) {
			throw new DataAccessResourceFailureException(
					"No connection to " + this.node + " free within " + wait.toMillis()
							+ " ms: its pool is exhausted (pool max-active, max-wait, slotwise.multikey.timeout)",
					ex);
		}
		catch (IllegalStateException ex) {
			throw new DataAccessResourceFailureException("The pool of " + this.node + " is closed", ex);
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new DataAccessResourceFailureException("No connection to " + this.node + ": " + ex.getMessage(), ex);
		}
		connection.setHandlingPool(pool);
		return connection;
	}

	/**
	 * Starts bounding the reads of a connection by the deadline; closing the result
	 * restores its read timeout.
	 * @param connection the borrowed connection
	 * @return the bound, to close before the connection returns to its pool
	 */
	ReadTimeout readTimeout(Connection connection) {
		return new ReadTimeout(connection, connection.getSoTimeout());
	}

	private long left() {
		return this.deadline - System.nanoTime();
	}

	/**
	 * The read timeout of one borrowed connection, shortened to the time left before each
	 * window and restored before the connection returns to its pool (a connection whose
	 * read timed out is broken and not reused).
	 */
	final class ReadTimeout implements AutoCloseable {

		private final Connection connection;

		private final int configured;

		private boolean changed;

		private ReadTimeout(Connection connection, int configured) {
			this.connection = connection;
			this.configured = configured;
		}

		/**
		 * Lets the next window's replies take no longer than the time left (0 is "no
		 * timeout" to a socket: never).
		 */
		void bound() {
			bound(JedisBatchGuard.this.deadline);
		}

		/**
		 * Lets the next replies take no longer than until the given time (at least a
		 * millisecond).
		 * @param until a {@link System#nanoTime()}
		 */
		void bound(long until) {
			long leftMillis = TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime()) + 1;
			int bound = (int) Math.max(1, Math.min(Integer.MAX_VALUE, leftMillis));
			if (this.configured == 0 || bound < this.configured) {
				this.connection.setSoTimeout(bound);
				this.changed = true;
			}
		}

		@Override
		public void close() {
			if (this.changed && !this.connection.isBroken()) {
				this.connection.setSoTimeout(this.configured);
			}
		}

	}

}
