package dev.slotwise.internal.transaction;

import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

import dev.slotwise.internal.compat.JedisNodePools;
import dev.slotwise.internal.pool.BrokenJedisConnections;
import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.topology.RefreshableTopologyProvider;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.jedis.JedisConnection;
import org.springframework.data.redis.connection.jedis.JedisExceptionConverter;

/**
 * Cluster transactions over Jedis: each runs on a connection borrowed from Jedis's pool
 * of the slot's master and given back at its end (closed instead when its state is in
 * doubt, and then returned to its pool off the caller's thread,
 * {@link BrokenJedisConnections}).
 */
public final class JedisTransactions {

	private static final JedisExceptionConverter EXCEPTIONS = new JedisExceptionConverter();

	private JedisTransactions() {
	}

	/**
	 * Creates the transaction state of one cluster connection.
	 * @param client the cluster client whose node pools transactions borrow from
	 * @param topologyProvider the factory's topology provider, which names each slot's
	 * master
	 * @param releaser returns broken connections to their pools off the caller's thread
	 * @param pipelined whether the connection pipelines
	 * @param observer sees each transaction end
	 * @return the transaction state
	 */
	public static ClusterTransaction create(RedisClusterClient client, ClusterTopologyProvider topologyProvider,
			Executor releaser, BooleanSupplier pipelined, TransactionObserver observer) {
		return new SlotTransaction(new Sessions(client, topologyProvider, releaser), pipelined, observer);
	}

	private record Sessions(RedisClusterClient client, ClusterTopologyProvider topologyProvider,
			Executor releaser) implements NodeSessions {

		@Override
		public Session open(int slot, byte[] key) {
			try {
				RedisClusterNode master = this.topologyProvider.getTopology().getKeyServingMasterNode(key);
				NodeAddress address = JedisNodePools.address(master, this.client.getClusterNodes().keySet());
				if (address == null) {
					throw new DataAccessResourceFailureException(
							"No connection pool for " + master.asString() + ", the master serving slot " + slot);
				}
				ConnectionPool pool = JedisNodePools.forAddress(this.client, address, key);
				Connection connection = pool.getResource();
				// Spring Data Redis's standalone connection over the borrowed socket. It
				// is never closed: without a pool of its own it would disconnect the
				// socket instead of returning it.
				return new JedisSession(new JedisConnection(new Jedis(connection)), connection, pool, this.releaser,
						address.toString());
			}
			catch (DataAccessException ex) {
				throw ex;
			}
			catch (RuntimeException ex) {
				// The node is down or unknown: translated as Spring Data Redis translates
				// Jedis's failures.
				DataAccessException translated = EXCEPTIONS.convert(ex);
				throw (translated != null) ? translated : ex;
			}
		}

		@Override
		public void invalidateTopology() {
			if (this.topologyProvider instanceof RefreshableTopologyProvider refreshable) {
				refreshable.invalidate();
			}
		}

	}

	private record JedisSession(RedisConnection connection, Connection nodeConnection, ConnectionPool pool,
			Executor releaser, String node) implements NodeSessions.Session {

		@Override
		public void release(boolean reusable) {
			if (!reusable) {
				this.nodeConnection.setBroken();
			}
			if (this.nodeConnection.isBroken()) {
				// Its socket closed here (which ends MULTI and WATCH) before the releaser
				// sees it: closing flushes what Jedis still buffers, which two threads
				// must not do at once.
				disconnect();
				// The pool opens the replacement of a broken connection as it takes it
				// back: towards a node that accepts connections but does not answer, that
				// would hold the caller for a whole socket timeout.
				BrokenJedisConnections.returnOffThread(this.nodeConnection, this.pool, this.releaser);
				return;
			}
			try {
				this.nodeConnection.close();
			}
			catch (RuntimeException ex) {
				// The pool is closed: the transaction's own failure is what the caller
				// must see, and the socket must close.
				disconnect();
			}
		}

		private void disconnect() {
			try {
				this.nodeConnection.disconnect();
			}
			catch (RuntimeException ex) {
				// The flush failed on a dead socket; the socket is closed all the same.
			}
		}

	}

}
