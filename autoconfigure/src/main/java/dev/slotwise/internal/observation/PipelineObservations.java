package dev.slotwise.internal.observation;

import dev.slotwise.internal.observed.Observed;
import dev.slotwise.internal.pipeline.PipelineObserver;
import io.micrometer.observation.ObservationRegistry;

/**
 * Observes each cluster pipeline ({@code closePipeline()}) as {@code slotwise.pipeline},
 * with one {@code slotwise.pipeline.batch} child per node batch (see
 * {@link SlotwiseObservationConvention} for the keys). A cross-slot multi-key command of
 * the pipeline is a {@code slotwise.multikey} child of it.
 */
public final class PipelineObservations extends ClientObservations<PipelineObserver>
		implements PipelineObserver.Source {

	/**
	 * Creates the observations.
	 * @param registry the application's registry
	 */
	public PipelineObservations(ObservationRegistry registry) {
		super(registry, ClientObserver::new);
	}

	private record ClientObserver(ObservationRegistry registry, String client) implements PipelineObserver {

		@Override
		public Observed start(int commands) {
			return ObservedOperation.start(this.registry, SlotwiseObservationKind.PIPELINE, "pipeline", this.client,
					commands, null, null);
		}

	}

}
