package dev.slotwise.internal.topology;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * Settings of a Slotwise topology provider.
 *
 * @param cacheTtl how long a fetched topology is served before a lookup refreshes it;
 * zero refreshes on every lookup (still one refresh at a time, and no more often than
 * {@code minRefreshInterval})
 * @param minRefreshInterval the least time between the starts of two refreshes, however
 * often the topology is invalidated or expires; also the first back-off step after a
 * failed refresh
 * @param preferReplicas whether refreshes ask replicas first when replicas are known
 * @param initialTimeout how long a lookup waits for the refresh another thread runs when
 * no topology exists yet
 * @param observer sees refreshes and lookups, for meters
 */
public record TopologySettings(Duration cacheTtl, Duration minRefreshInterval, boolean preferReplicas,
		Duration initialTimeout, TopologyObserver observer) {

	/**
	 * Checks the settings.
	 * @param cacheTtl the cache time-to-live, not negative
	 * @param minRefreshInterval the minimum interval between refreshes, not negative
	 * @param preferReplicas whether to prefer replicas
	 * @param initialTimeout the initial wait, positive
	 * @param observer the observer
	 */
	public TopologySettings {
		Assert.notNull(cacheTtl, "'cacheTtl' must not be null");
		Assert.isTrue(!cacheTtl.isNegative(), "'cacheTtl' must not be negative");
		Assert.notNull(minRefreshInterval, "'minRefreshInterval' must not be null");
		Assert.isTrue(!minRefreshInterval.isNegative(), "'minRefreshInterval' must not be negative");
		Assert.notNull(initialTimeout, "'initialTimeout' must not be null");
		Assert.isTrue(!initialTimeout.isNegative() && !initialTimeout.isZero(), "'initialTimeout' must be positive");
		Assert.notNull(observer, "'observer' must not be null");
	}

}
