package dev.slotwise.internal.multikey;

/**
 * Where the Jedis engine sends its reads ({@code MGET}, {@code EXISTS}); writes always go to masters.
 */
public enum JedisReadFrom {

	/** Every read goes to the master serving the slot. */
	MASTER,

	/**
	 * Reads go to a random replica of the slot's master, the master when it has none the cluster considers up; a
	 * batch a replica fails is sent again to the master.
	 */
	REPLICA,

	/**
	 * Reads go to a random replica of the slot's master that has not failed a batch in the last
	 * {@link JedisReadRouting#QUARANTINE}, else to the master; a batch a replica fails is sent again to the master.
	 */
	REPLICA_PREFERRED

}
