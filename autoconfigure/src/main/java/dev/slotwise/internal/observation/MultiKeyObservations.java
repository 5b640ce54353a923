package dev.slotwise.internal.observation;

import java.util.Locale;

import dev.slotwise.internal.multikey.MultiKeyCommand;
import dev.slotwise.internal.multikey.MultiKeyObserver;
import dev.slotwise.internal.observed.Observed;
import io.micrometer.observation.ObservationRegistry;

/**
 * Observes each cross-slot multi-key call as {@code slotwise.multikey}, with one
 * {@code slotwise.multikey.batch} child per node batch (see
 * {@link SlotwiseObservationConvention} for the keys). Over Lettuce, the client's own
 * per-command observations ({@code lettuce}) become children of the batches.
 */
public final class MultiKeyObservations extends ClientObservations<MultiKeyObserver>
		implements MultiKeyObserver.Source {

	/**
	 * Creates the observations.
	 * @param registry the application's registry
	 */
	public MultiKeyObservations(ObservationRegistry registry) {
		super(registry, ClientObserver::new);
	}

	private record ClientObserver(ObservationRegistry registry, String client) implements MultiKeyObserver {

		@Override
		public Observed start(MultiKeyCommand command, int keys) {
			return ObservedOperation.start(this.registry, SlotwiseObservationKind.MULTIKEY,
					command.name().toLowerCase(Locale.ROOT), this.client, keys, null, null);
		}

	}

}
