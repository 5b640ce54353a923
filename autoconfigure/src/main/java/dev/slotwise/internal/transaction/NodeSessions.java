package dev.slotwise.internal.transaction;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * Opens a transaction's own connection to the master serving a slot, one client's way.
 */
interface NodeSessions {

	/**
	 * Opens a session on the master serving a slot.
	 * @param slot the slot
	 * @param key a key of the slot
	 * @return the session
	 * @throws org.springframework.dao.DataAccessException translated as Spring Data Redis
	 * translates the client's failures when no connection can be had
	 */
	Session open(int slot, byte[] key);

	/**
	 * Asks for a new view of the slot owners, after a slot was found to have moved.
	 */
	void invalidateTopology();

	/**
	 * A connection of the transaction's own to one master.
	 */
	interface Session {

		/**
		 * Returns Spring Data Redis's standalone connection over the node connection,
		 * which queues, runs and converts.
		 * @return the standalone connection
		 */
		RedisConnection connection();

		/**
		 * Names the node, for messages.
		 * @return {@code host:port}
		 */
		String node();

		/**
		 * Gives the node connection back.
		 * @param reusable whether it is known to be in its initial state (no
		 * {@code MULTI}, no {@code WATCH}); when not, it is closed
		 */
		void release(boolean reusable);

	}

}
