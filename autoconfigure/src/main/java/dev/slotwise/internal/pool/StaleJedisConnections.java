package dev.slotwise.internal.pool;

import java.net.SocketTimeoutException;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The one rule by which a Jedis node batch (a multi-key call's, a pipeline's) is sent
 * again: when it failed on a connection borrowed from a pool <em>before any reply of the
 * batch was read</em>, with a connection failure that is not a read timeout. That is the
 * connection a node closed while it sat idle in the pool ({@code CLIENT KILL}, the
 * server's {@code timeout}, a restart), which the node closed without reading the batch;
 * and the next borrow would likely draw another connection closed at the same moment, so
 * the pool's idle connections are dropped and the batch goes once more on a fresh one.
 * <p>
 * Why this is no worse than plain Spring Boot: without Slotwise, every single-key
 * command, writes included, runs through Jedis's cluster command executor, which sends it
 * again on any connection failure (up to {@code max-redirects} attempts), even one that
 * occurred after the node may have executed it. Slotwise sends a batch again once, only
 * when nothing of it was read back, and never after a read timed out (the node may still
 * be executing it) nor after a reply was read (part of the batch was applied: the caller
 * must see the failure).
 */
public final class StaleJedisConnections {

	private StaleJedisConnections() {
	}

	/**
	 * Runs one node batch, and once more on a fresh connection when the first attempt
	 * failed on a borrowed connection with a connection failure (not a read timeout)
	 * before it read any of the batch's replies.
	 * @param <T> the batch's result
	 * @param pool the node's pool, whose idle connections are dropped before the second
	 * attempt
	 * @param attempt borrows a connection from the pool (passing it through
	 * {@link Attempt#borrowed(Connection)}), sends the batch, reads its first reply
	 * through {@link Attempt#read(Connection)} and returns the connection
	 * @return the result of the attempt that succeeded
	 */
	public static <T> T send(ConnectionPool pool, Function<Attempt, T> attempt) {
		Attempt first = new Attempt();
		try {
			return attempt.apply(first);
		}
		catch (RuntimeException ex) {
			return again(pool, first, ex, attempt);
		}
	}

	/**
	 * Starts the first attempt of a batch whose sending the caller runs itself (a round
	 * of several nodes' batches written before any reply is read); after a failure,
	 * {@link #again} decides whether it goes once more.
	 * @return the first attempt
	 */
	public static Attempt firstAttempt() {
		return new Attempt();
	}

	/**
	 * Sends a batch once more on a fresh connection when its first attempt failed on a
	 * borrowed connection with a connection failure (not a read timeout) before it read
	 * any reply; otherwise rethrows the failure.
	 * @param <T> the batch's result
	 * @param pool the node's pool, whose idle connections are dropped before the second
	 * attempt
	 * @param first the failed attempt, whose connection is back in its pool (broken, so
	 * destroyed)
	 * @param failure its failure
	 * @param attempt sends the batch as for {@link #send}
	 * @return the result of the second attempt
	 */
	public static <T> T again(ConnectionPool pool, Attempt first, RuntimeException failure,
			Function<Attempt, T> attempt) {
		if (!first.allowsAnother(failure)) {
			throw failure;
		}
		// The failed connection went back to its pool broken (destroyed); its idle
		// siblings likely died with it. Dropping them closes their sockets, no command
		// sent; connections in use are untouched.
		pool.clear();
		try {
			return attempt.apply(new Attempt());
		}
		catch (RuntimeException again) {
			again.addSuppressed(failure);
			throw again;
		}
	}

	/**
	 * Returns whether a failure that came before any reply of the batch was read allows a
	 * second attempt.
	 */
	static boolean retryable(Throwable failure) {
		if (!(failure instanceof JedisConnectionException)) {
			return false;
		}
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof SocketTimeoutException) {
				return false;
			}
		}
		return true;
	}

	/**
	 * One attempt at a batch: whether a reply of it was read, after which there is no
	 * second attempt.
	 */
	public static final class Attempt {

		private boolean borrowed;

		private boolean replyRead;

		private Attempt() {
		}

		/**
		 * Returns whether a failure of this attempt allows a second one: it held a
		 * connection, read none of the batch's replies, and failed on the connection
		 * other than by a read timeout.
		 * @param failure the attempt's failure
		 * @return whether {@link StaleJedisConnections#again} sends the batch once more
		 */
		public boolean allowsAnother(RuntimeException failure) {
			return this.borrowed && !this.replyRead && retryable(failure);
		}

		/**
		 * Records that the attempt holds a connection from the pool: a failure to get one
		 * (the node refuses connections, the pool is exhausted) is not sent again.
		 * @param connection the borrowed connection
		 * @return the connection
		 */
		public Connection borrowed(Connection connection) {
			this.borrowed = true;
			return connection;
		}

		/**
		 * Flushes what the connection buffered and reads one reply, an error reply
		 * returned as its exception; from then on, the attempt has read a reply.
		 * @param connection the attempt's connection
		 * @return the reply
		 */
		public @Nullable Object read(Connection connection) {
			try {
				return connection.getOne();
			}
			catch (JedisDataException ex) {
				return ex;
			}
			finally {
				this.replyRead |= !connection.isBroken();
			}
		}

	}

}
