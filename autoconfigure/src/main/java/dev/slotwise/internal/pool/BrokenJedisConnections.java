package dev.slotwise.internal.pool;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;

/**
 * Gives broken Jedis connections back to their pools off the thread that found them
 * broken. commons-pool2 (2.13) replaces an invalidated connection at once, on the
 * returning thread: towards a node that accepts connections but does not answer (paused,
 * overloaded), the replacement's handshake would hold that thread for the whole socket
 * timeout, far past a multi-key call's deadline.
 */
public final class BrokenJedisConnections {

	private static final Log logger = LogFactory.getLog(BrokenJedisConnections.class);

	private BrokenJedisConnections() {
	}

	/**
	 * Detaches a broken connection from its pool and hands it back to the pool on the
	 * releaser's thread. Once detached, the borrower's {@code close()} only closes the
	 * socket.
	 * @param connection the broken connection, still to be closed by its borrower
	 * @param pool the pool it was borrowed from
	 * @param releaser the thread that returns it
	 */
	public static void returnOffThread(Connection connection, ConnectionPool pool, Executor releaser) {
		connection.setHandlingPool(null);
		try {
			releaser.execute(() -> {
				try {
					pool.returnBrokenResource(connection);
				}
				catch (RuntimeException ex) {
					logger.debug("Could not return a broken connection to its pool", ex);
				}
				finally {
					if (pool.isClosed()) {
						// The client closed while the replacement was being opened: it
						// landed in a closed pool, which nothing would close again.
						pool.clear();
					}
				}
			});
		}
		catch (RejectedExecutionException ex) {
			// Shutting down: the pool closes with the client, and the borrower closes the
			// socket.
		}
	}

}
