package dev.slotwise.internal.observation;

import dev.slotwise.internal.nearcache.RemoteReadObserver;
import dev.slotwise.internal.observed.Observed;
import io.micrometer.observation.ObservationRegistry;

/**
 * Observes each template read the near cache sent to Redis (a {@code get} that missed,
 * the {@code mGet} of the keys that missed) as {@code slotwise.near-cache}, tagged
 * {@code result=miss} (see {@link SlotwiseObservationConvention} for the keys); a
 * multi-key call or the client's own command observation is its child. Reads answered
 * from memory are not observed, so that a hit stays a memory read:
 * {@code slotwise.near-cache.reads} counts them.
 */
public final class NearCacheObservations extends ClientObservations<RemoteReadObserver>
		implements RemoteReadObserver.Source {

	/**
	 * Creates the observations.
	 * @param registry the application's registry
	 */
	public NearCacheObservations(ObservationRegistry registry) {
		// RemoteReadObserver has one method: a lambda rather than a record per client.
		super(registry, (observed, client) -> (command, keys) -> ObservedOperation.start(observed,
				SlotwiseObservationKind.NEAR_CACHE, command, client, keys, null, null));
	}

}
