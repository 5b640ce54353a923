package dev.slotwise.internal.multikey.jedis;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.slotwise.internal.routing.NodeAddress;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.ConnectionPool;

/**
 * Which node pools a {@link JedisRound} may borrow from on the caller's thread: those
 * with an idle connection not already claimed by another round. A borrow from a pool
 * without one opens a connection, and the node's handshake is bounded only by the socket
 * timeout, not by the call's deadline: a node that accepts connections but answers
 * nothing (paused, overloaded) would hold the caller. Counting the rounds' claims keeps
 * concurrent callers from all counting on the same last idle connection.
 * <p>
 * Other borrowers of the same pools (an executor thread's batch, Spring Data's single-key
 * commands through Jedis) claim nothing, so a claimed connection can still be taken
 * first, and the round's borrow then opens one: the claims make that rare, not
 * impossible. Such a borrow waits as any Jedis command does, for the socket timeout.
 */
final class JedisIdleConnections {

	private final Map<NodeAddress, Claims> byNode = new ConcurrentHashMap<>();

	/**
	 * Claims one idle connection of the node's pool.
	 * @param node the node
	 * @param pool its pool now
	 * @return the claim, to release once the connection is borrowed (or not needed);
	 * {@code null} when the pool has no unclaimed idle connection
	 */
	@Nullable Claim claim(NodeAddress node, ConnectionPool pool) {
		Claims claims = this.byNode.get(node);
		if (claims == null || claims.pool != pool) {
			// A node's pool is replaced when Jedis sets the node up again: its claims
			// start from zero.
			claims = new Claims(pool);
			this.byNode.put(node, claims);
		}
		AtomicInteger claimed = claims.claimed;
		while (true) {
			int current = claimed.get();
			if (pool.getNumIdle() - current <= 0) {
				return null;
			}
			if (claimed.compareAndSet(current, current + 1)) {
				return new Claim(pool, claimed);
			}
		}
	}

	private record Claims(ConnectionPool pool, AtomicInteger claimed) {

		Claims(ConnectionPool pool) {
			this(pool, new AtomicInteger());
		}

	}

	/**
	 * One claimed idle connection.
	 *
	 * @param pool the pool to borrow it from
	 * @param claimed the pool's count of claims
	 */
	record Claim(ConnectionPool pool, AtomicInteger claimed) {

		void release() {
			this.claimed.decrementAndGet();
		}

	}

}
