package dev.slotwise.multikey;

/**
 * Where Slotwise's multi-key engine sends its cross-slot reads ({@code MGET},
 * {@code EXISTS}) over Jedis ({@code slotwise.multikey.read-from}); writes always go to
 * masters. Over Lettuce the engine follows {@code spring.data.redis.lettuce.read-from}
 * instead.
 */
public enum MultiKeyReadFrom {

	/** Every read goes to the master serving the slot. */
	MASTER,

	/**
	 * Reads go to a random replica of the slot's master (the master when it has none the
	 * cluster considers up); a batch a replica fails is sent again to the master.
	 */
	REPLICA,

	/**
	 * Reads go to a random replica of the slot's master that has not failed a batch in
	 * the last 5 seconds, else to the master; a batch a replica fails is sent again to
	 * the master.
	 */
	REPLICA_PREFERRED

}
