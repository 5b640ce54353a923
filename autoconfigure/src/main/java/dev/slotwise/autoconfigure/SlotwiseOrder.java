package dev.slotwise.autoconfigure;

import org.springframework.core.Ordered;

/**
 * The order of Slotwise's customizer beans, in one place. Spring applies ordered beans
 * lowest value first, and the application's own customizers (unordered, so last) after
 * all of these.
 * <ul>
 * <li>Spring Boot's client-configuration customizers: Slotwise's pool tuning runs first
 * so that a customizer of the application, running after it, wins.</li>
 * <li>Slotwise's connection-factory customizers: the topology comes first, then the pools
 * (the re-applied pool configuration and the pre-warm, which must run before anything
 * reads the warmed pools), then the meters, then the composition of the cluster
 * connections, whose features use the topology and the pools. Hooks that only one
 * contributor may fill fail loudly whatever the order; the order matters for the
 * listeners called when a factory starts.</li>
 * </ul>
 */
final class SlotwiseOrder {

	/**
	 * Slotwise's pool tuning among Spring Boot's client-configuration customizers: first.
	 */
	static final int POOL_TUNING = Ordered.HIGHEST_PRECEDENCE;

	/** The topology provider and refresh options of a Slotwise connection factory. */
	static final int TOPOLOGY = -100;

	/**
	 * The pool configuration re-applied to the Jedis cluster client, and the pre-warm.
	 */
	static final int POOL = 0;

	/** The pool meters, bound once the pools are warm. */
	static final int POOL_METRICS = 10;

	/** The composition of Slotwise's cluster connections from the features left on. */
	static final int CLUSTER_CONNECTIONS = 100;

	/**
	 * The features of Slotwise's cluster connections, in the order their command layers
	 * wrap Spring Data Redis's commands (the first outermost): the key walks answer a
	 * cache clear's delete of keys their scan removed before the multi-key engine sees
	 * it.
	 */
	static final int KEYSPACE_FEATURE = 0;

	/**
	 * The near cache's feature, outermost: a template read it answers from memory goes no
	 * further, and an {@code mGet}'s misses go on through the multi-key engine.
	 */
	static final int NEAR_CACHE_FEATURE = -10;

	/** The multi-key engine's feature: see {@link #KEYSPACE_FEATURE}. */
	static final int MULTIKEY_FEATURE = 10;

	/** The pipelining feature: see {@link #KEYSPACE_FEATURE}. */
	static final int PIPELINE_FEATURE = 20;

	/** The pub/sub feature: see {@link #KEYSPACE_FEATURE}. */
	static final int PUBSUB_FEATURE = 30;

	/** The transactions feature: see {@link #KEYSPACE_FEATURE}. */
	static final int TRANSACTION_FEATURE = 40;

	private SlotwiseOrder() {
	}

}
