package dev.slotwise.internal.observation;

import java.util.Locale;

import dev.slotwise.internal.multikey.MultiKeyCommand;
import dev.slotwise.internal.multikey.MultiKeyObserver;
import dev.slotwise.internal.observed.Observed;
import io.micrometer.observation.ObservationRegistry;

/**
 * Observes each cross-slot multi-key call as {@code slotwise.multikey}, with one {@code slotwise.multikey.batch}
 * child per node batch (see {@link SlotwiseObservationConvention} for the keys). Over Lettuce, the client's own
 * per-command observations ({@code lettuce}) become children of the batches.
 */
public final class MultiKeyObservations implements MultiKeyObserver.Source {

	private final ObservationRegistry registry;

	/**
	 * Creates the observations.
	 * @param registry the application's registry
	 */
	public MultiKeyObservations(ObservationRegistry registry) {
		if (registry == null) {
			throw new IllegalArgumentException("'registry' must not be null");
		}
		this.registry = registry;
	}

	@Override
	public MultiKeyObserver forClient(String client) {
		return new ClientObserver(this.registry, client);
	}

	private record ClientObserver(ObservationRegistry registry, String client) implements MultiKeyObserver {

		@Override
		public Observed start(MultiKeyCommand command, int keys) {
			return ObservedOperation.start(this.registry, SlotwiseObservationKind.MULTIKEY,
					command.name().toLowerCase(Locale.ROOT), this.client, keys, null, null);
		}

	}

}
