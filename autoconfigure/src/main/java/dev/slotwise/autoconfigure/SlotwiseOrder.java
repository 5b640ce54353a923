package dev.slotwise.autoconfigure;

import org.springframework.core.Ordered;

/**
 * The order of Slotwise's customizer beans, in one place. Spring applies ordered beans lowest value first, and the
 * application's own customizers (unordered, so last) after all of these.
 * <ul>
 * <li>Spring Boot's client-configuration customizers: Slotwise's pool tuning runs first so that a customizer of the
 * application, running after it, wins.</li>
 * <li>Slotwise's connection-factory customizers: the topology comes first, then the pools (the re-applied pool
 * configuration and the pre-warm, which must run before anything reads the warmed pools), then the meters, then the
 * multi-key engine, which uses the topology and the pools. Hooks that only one contributor may fill fail loudly
 * whatever the order; the order matters for the listeners called when a factory starts.</li>
 * </ul>
 */
final class SlotwiseOrder {

	/** Slotwise's pool tuning among Spring Boot's client-configuration customizers: first. */
	static final int POOL_TUNING = Ordered.HIGHEST_PRECEDENCE;

	/** The topology provider and refresh options of a Slotwise connection factory. */
	static final int TOPOLOGY = -100;

	/** The pool configuration re-applied to the Jedis cluster client, and the pre-warm. */
	static final int POOL = 0;

	/** The pool meters, bound once the pools are warm. */
	static final int POOL_METRICS = 10;

	/** The multi-key engine's cluster connections. */
	static final int MULTIKEY = 100;

	private SlotwiseOrder() {
	}

}
