package dev.slotwise.internal.observation;

import dev.slotwise.internal.observed.Observed;
import dev.slotwise.internal.pipeline.PipelineObserver;
import io.micrometer.observation.ObservationRegistry;

/**
 * Observes each cluster pipeline ({@code closePipeline()}) as {@code slotwise.pipeline}, with one
 * {@code slotwise.pipeline.batch} child per node batch (see {@link SlotwiseObservationConvention} for the keys). A
 * cross-slot multi-key command of the pipeline is a {@code slotwise.multikey} child of it.
 */
public final class PipelineObservations implements PipelineObserver.Source {

	private final ObservationRegistry registry;

	/**
	 * Creates the observations.
	 * @param registry the application's registry
	 */
	public PipelineObservations(ObservationRegistry registry) {
		if (registry == null) {
			throw new IllegalArgumentException("'registry' must not be null");
		}
		this.registry = registry;
	}

	@Override
	public PipelineObserver forClient(String client) {
		return new ClientObserver(this.registry, client);
	}

	private record ClientObserver(ObservationRegistry registry, String client) implements PipelineObserver {

		@Override
		public Observed start(int commands) {
			return ObservedOperation.start(this.registry, SlotwiseObservationKind.PIPELINE, "pipeline", this.client,
					commands, null, null);
		}

	}

}
