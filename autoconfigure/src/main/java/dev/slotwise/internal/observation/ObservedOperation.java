package dev.slotwise.internal.observation;

import java.util.concurrent.CancellationException;

import dev.slotwise.internal.observed.Observed;
import dev.slotwise.internal.routing.NodeAddress;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * An {@link Observed} operation backed by a started {@link Observation}; its node batches
 * are child observations.
 */
final class ObservedOperation implements Observed {

	/**
	 * Outcome of a node batch abandoned because its call had already ended (failed
	 * elsewhere, timed out).
	 */
	static final String CANCELLED = "cancelled";

	private final ObservationRegistry registry;

	private final Observation observation;

	private final SlotwiseObservationContext context;

	private ObservedOperation(ObservationRegistry registry, Observation observation,
			SlotwiseObservationContext context) {
		this.registry = registry;
		this.observation = observation;
		this.context = context;
	}

	/**
	 * Starts an observation.
	 * @param registry the registry
	 * @param kind what is observed
	 * @param command the command, lower case
	 * @param client the client
	 * @param size keys or commands
	 * @param node the node of a batch, {@code null} otherwise
	 * @param parent the parent of a batch; a call or pipeline takes the observation
	 * current on the calling thread
	 * @return the operation, {@link Observed#NONE} when the registry does not observe it
	 * (no handler, or a predicate turned it off), so that nothing more is allocated for
	 * it
	 */
	static Observed start(ObservationRegistry registry, SlotwiseObservationKind kind, String command, String client,
			int size, @Nullable NodeAddress node, @Nullable Observation parent) {
		if (registry.isNoop()) {
			return NONE;
		}
		SlotwiseObservationContext context = new SlotwiseObservationContext(kind, command, client, size,
				(node != null) ? node.host() : null, (node != null) ? node.port() : 0);
		Observation observation = Observation.createNotStarted(null, SlotwiseObservationConvention.defaultFor(kind),
				() -> context, registry);
		if (observation.isNoop()) {
			return NONE;
		}
		if (parent != null) {
			observation.parentObservation(parent);
		}
		observation.start();
		return new ObservedOperation(registry, observation, context);
	}

	@Override
	public Observed batch(NodeAddress node, int commands) {
		SlotwiseObservationKind kind = (this.context.getKind() == SlotwiseObservationKind.PIPELINE)
				? SlotwiseObservationKind.PIPELINE_BATCH : SlotwiseObservationKind.MULTIKEY_BATCH;
		return start(this.registry, kind, this.context.getCommand(), this.context.getClient(), commands, node,
				this.observation);
	}

	@Override
	public Scope open() {
		Observation.Scope scope = this.observation.openScope();
		return scope::close;
	}

	@Override
	public void resize(int size) {
		this.context.setSize(size);
	}

	@Override
	public void end(String outcome, @Nullable Throwable failure) {
		if (failure instanceof CancellationException) {
			this.context.setOutcome(CANCELLED);
		}
		else {
			this.context.setOutcome(outcome);
			if (failure != null) {
				this.observation.error(failure);
			}
		}
		this.observation.stop();
	}

}
