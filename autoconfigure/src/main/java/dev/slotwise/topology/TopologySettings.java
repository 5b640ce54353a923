package dev.slotwise.topology;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * Settings of a Slotwise topology provider.
 *
 * @param cacheTtl how long a fetched topology is served before a lookup refreshes it; zero refreshes on every
 * lookup (still one refresh at a time)
 * @param preferReplicas whether refreshes ask replicas first when replicas are known
 * @param initialTimeout how long a lookup waits for the refresh another thread runs when no topology exists yet
 * @param observer sees refreshes and lookups, for meters
 */
public record TopologySettings(Duration cacheTtl, boolean preferReplicas, Duration initialTimeout,
		TopologyObserver observer) {

	/**
	 * Checks the settings.
	 * @param cacheTtl the cache time-to-live, not negative
	 * @param preferReplicas whether to prefer replicas
	 * @param initialTimeout the initial wait, positive
	 * @param observer the observer
	 */
	public TopologySettings {
		Assert.notNull(cacheTtl, "'cacheTtl' must not be null");
		Assert.isTrue(!cacheTtl.isNegative(), "'cacheTtl' must not be negative");
		Assert.notNull(initialTimeout, "'initialTimeout' must not be null");
		Assert.isTrue(!initialTimeout.isNegative() && !initialTimeout.isZero(), "'initialTimeout' must be positive");
		Assert.notNull(observer, "'observer' must not be null");
	}

}
