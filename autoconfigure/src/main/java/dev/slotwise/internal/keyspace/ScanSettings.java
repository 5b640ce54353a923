package dev.slotwise.internal.keyspace;

import java.time.Duration;

/**
 * The limits of cluster-wide key walks.
 *
 * @param concurrency how many nodes are read at the same time
 * @param readAhead how many keys a scan buffers ahead of its consumer before it stops
 * reading nodes
 * @param failoverTimeout how long a walk whose node stopped answering waits for the
 * node's slots to be served again (its successor after a failover) before the scan fails
 * @param timeout how long a {@code KEYS} on all masters may take, and a cache clear's
 * removal of one page of keys
 */
public record ScanSettings(int concurrency, int readAhead, Duration failoverTimeout, Duration timeout) {

	/**
	 * Checks the limits.
	 */
	public ScanSettings {
		if (concurrency < 1) {
			throw new IllegalArgumentException("'concurrency' must be at least 1, was " + concurrency);
		}
		if (readAhead < 1) {
			throw new IllegalArgumentException("'readAhead' must be at least 1, was " + readAhead);
		}
		if (failoverTimeout == null || failoverTimeout.isNegative()) {
			throw new IllegalArgumentException("'failoverTimeout' must not be negative");
		}
		if (timeout == null || timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("'timeout' must be positive");
		}
	}

}
