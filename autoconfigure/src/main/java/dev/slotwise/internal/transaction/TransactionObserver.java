package dev.slotwise.internal.transaction;

/**
 * Sees each cluster transaction end; keeps Micrometer out of the transactions.
 */
@FunctionalInterface
public interface TransactionObserver {

	/** Sees nothing. */
	TransactionObserver NONE = (outcome, commands, nanos) -> {
	};

	/**
	 * Called once per transaction that reached a node (or was refused before reaching one), on the caller's thread.
	 * @param outcome how it ended
	 * @param commands how many commands it queued
	 * @param nanos from {@code multi()} (or the first {@code watch}) to its end
	 */
	void ended(Outcome outcome, int commands, long nanos);

	/**
	 * How a transaction ended.
	 */
	enum Outcome {

		/** {@code EXEC} ran the commands. */
		COMMITTED,

		/** {@code EXEC} ran nothing: a watched key changed. */
		CONFLICT,

		/** {@code DISCARD}, or closed before {@code EXEC}. */
		DISCARDED,

		/** Refused before sending (keys of another slot, a command with no key or no place in a transaction). */
		REFUSED,

		/** The slot moved while the commands were queued; nothing was applied. */
		SLOT_MOVED,

		/** The node failed, timed out or answered with an error. */
		FAILED

	}

	/**
	 * Creates an observer for one client.
	 */
	@FunctionalInterface
	interface Source {

		/**
		 * Returns the observer of the client's transactions.
		 * @param client {@code jedis} or {@code lettuce}
		 * @return the observer
		 */
		TransactionObserver forClient(String client);

	}

}
