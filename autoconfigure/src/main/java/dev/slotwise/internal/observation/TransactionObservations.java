package dev.slotwise.internal.observation;

import dev.slotwise.internal.observed.Observed;
import dev.slotwise.internal.transaction.TransactionObserver;
import io.micrometer.observation.ObservationRegistry;

/**
 * Observes each transaction on a cluster as {@code slotwise.transaction}, from
 * {@code multi()} to {@code exec()}, {@code discard()} or its failure, with the
 * transaction's outcome and the number of commands it queued (see
 * {@link SlotwiseObservationConvention} for the keys). Its parent is the observation
 * current when {@code multi()} is called; the client's own per-command observations of
 * the queued commands (Lettuce's) are not its children, since the transaction spans
 * several calls of the application.
 */
public final class TransactionObservations extends ClientObservations<TransactionObserver>
		implements TransactionObserver.Source {

	/**
	 * Creates the observations.
	 * @param registry the application's registry
	 */
	public TransactionObservations(ObservationRegistry registry) {
		super(registry, ClientObserver::new);
	}

	private record ClientObserver(ObservationRegistry registry, String client) implements TransactionObserver {

		@Override
		public Observed start() {
			return ObservedOperation.start(this.registry, SlotwiseObservationKind.TRANSACTION, "transaction",
					this.client, 0, null, null);
		}

		@Override
		public void ended(Outcome outcome, int commands, long nanos) {
			// The observation ends with what start() returned.
		}

	}

}
