package dev.slotwise.internal.observation;

import java.util.function.BiFunction;

import dev.slotwise.internal.observed.Observers;
import io.micrometer.observation.ObservationRegistry;

/**
 * Observations of one kind of operation in the application's registry, handing out one
 * observer per client.
 *
 * @param <O> the observer type
 */
abstract class ClientObservations<O> implements Observers.Source<O> {

	private final ObservationRegistry registry;

	private final BiFunction<ObservationRegistry, String, O> observer;

	ClientObservations(ObservationRegistry registry, BiFunction<ObservationRegistry, String, O> observer) {
		if (registry == null) {
			throw new IllegalArgumentException("'registry' must not be null");
		}
		this.registry = registry;
		this.observer = observer;
	}

	@Override
	public final O forClient(String client) {
		return this.observer.apply(this.registry, client);
	}

}
