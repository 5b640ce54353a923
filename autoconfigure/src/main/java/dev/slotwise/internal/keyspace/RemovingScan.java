package dev.slotwise.internal.keyspace;

/**
 * The keys of a cache clear whose cluster-wide scan removed them itself, on the master where each was found (see
 * {@code dev.slotwise.internal.keyspace}): the clear's own {@code DEL} of those keys, on the same connection, is
 * answered without sending them again.
 */
public interface RemovingScan {

	/**
	 * Takes back, among keys the scan handed out, those it removed itself (the very arrays it returned).
	 * @param keys keys about to be deleted
	 * @return the keys still to delete, {@code keys} itself when the scan removed none of them
	 */
	byte[][] claimRemoved(byte[][] keys);

}
