package dev.slotwise.internal.keyspace;

/**
 * Sees every cluster-wide scan and cache clear; the Micrometer meters implement it, so
 * that the core does not depend on Micrometer.
 */
public interface ScanObserver {

	/** Sees nothing. */
	ScanObserver NONE = new ScanObserver() {
	};

	/**
	 * A scan ended.
	 * @param keys the keys it returned to its consumer
	 * @param rescanned the keys it returned from a walk restarted after a failover or
	 * from a slot rescanned after a migration, each possibly a duplicate
	 * @param restarts the node walks restarted on another node
	 * @param outcome how it ended
	 * @param durationNanos how long it ran
	 */
	default void scanned(long keys, long rescanned, long restarts, Outcome outcome, long durationNanos) {
	}

	/**
	 * A cache clear on a cluster ended.
	 * @param deleted the keys it deleted
	 * @param durationNanos how long it ran
	 */
	default void cleared(long deleted, long durationNanos) {
	}

	/**
	 * How a scan ended.
	 */
	enum Outcome {

		/** Every node was walked to its end. */
		COMPLETE,

		/** The consumer closed it first. */
		CLOSED,

		/** It failed. */
		FAILED

	}

	/**
	 * Hands out one observer per client; implemented by the meters, injected as an
	 * optional bean, so that Micrometer stays out of a class that needs it.
	 */
	interface Source {

		/**
		 * Returns the observer of one client.
		 * @param client {@code jedis} or {@code lettuce}
		 * @return the observer
		 */
		ScanObserver forClient(String client);

	}

}
