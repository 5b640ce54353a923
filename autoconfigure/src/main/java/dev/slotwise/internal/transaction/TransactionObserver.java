package dev.slotwise.internal.transaction;

import java.util.List;
import java.util.Locale;

import dev.slotwise.internal.observed.Observations;
import dev.slotwise.internal.observed.Observed;
import dev.slotwise.internal.observed.Observers;

/**
 * Sees each cluster transaction start and end; keeps Micrometer out of the transactions.
 */
@FunctionalInterface
public interface TransactionObserver {

	/** Sees nothing. */
	TransactionObserver NONE = (outcome, commands, nanos) -> {
	};

	/**
	 * Returns one observer that passes everything to each of the given ones:
	 * {@link #NONE} for none, the observer itself for one.
	 * @param observers the observers
	 * @return the observer
	 */
	static TransactionObserver of(List<TransactionObserver> observers) {
		return Observers.combine(observers, NONE, Composite::new);
	}

	/**
	 * Called when a transaction starts ({@code multi()}, or the {@code watch} before it),
	 * on the caller's thread. The transaction sets the number of commands it queued
	 * ({@link Observed#resize}) and ends what this returns with its {@link Outcome#tag()
	 * outcome} when it ends, on the caller's thread; it does not keep it current between
	 * its calls (they are separate calls of the application).
	 * @return the transaction's observation; {@link Observed#NONE} by default
	 */
	default Observed start() {
		return Observed.NONE;
	}

	/**
	 * Called once per transaction that reached a node (or was refused before reaching
	 * one), on the caller's thread.
	 * @param outcome how it ended
	 * @param commands how many commands it queued
	 * @param nanos from {@code multi()} (or the first {@code watch}) to its end
	 */
	void ended(Outcome outcome, int commands, long nanos);

	/**
	 * How a transaction ended.
	 */
	enum Outcome {

		/** {@code EXEC} ran the commands. */
		COMMITTED,

		/** {@code EXEC} ran nothing: a watched key changed. */
		CONFLICT,

		/** {@code DISCARD}, or closed before {@code EXEC}. */
		DISCARDED,

		/**
		 * Refused before sending (keys of another slot, a command with no key or no place
		 * in a transaction).
		 */
		REFUSED,

		/** The slot moved while the commands were queued; nothing was applied. */
		SLOT_MOVED,

		/** The node failed, timed out or answered with an error. */
		FAILED;

		/**
		 * Returns the outcome as meters and observations tag it.
		 * @return e.g. {@code committed}, {@code slot_moved}
		 */
		public String tag() {
			return name().toLowerCase(Locale.ROOT);
		}

	}

	/**
	 * Creates an observer for one client.
	 */
	@FunctionalInterface
	interface Source {

		/**
		 * Returns the observer of the client's transactions.
		 * @param client {@code jedis} or {@code lettuce}
		 * @return the observer
		 */
		TransactionObserver forClient(String client);

	}

	/**
	 * Passes everything to each of several observers.
	 */
	final class Composite implements TransactionObserver {

		private final List<TransactionObserver> observers;

		Composite(List<TransactionObserver> observers) {
			this.observers = observers;
		}

		@Override
		public Observed start() {
			return Observations.start(this.observers, (observer) -> observer.start());
		}

		@Override
		public void ended(Outcome outcome, int commands, long nanos) {
			for (TransactionObserver observer : this.observers) {
				observer.ended(outcome, commands, nanos);
			}
		}

	}

}
