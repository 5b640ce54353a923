package dev.slotwise.internal.multikey;

import java.util.List;

import dev.slotwise.internal.observed.Observations;
import dev.slotwise.internal.observed.Observed;
import dev.slotwise.internal.observed.Observers;
import dev.slotwise.internal.routing.RedirectKind;

/**
 * Sees what the multi-key engine does: each cross-slot call it runs and each redirect it
 * follows. Meters implement it, one per client; the engine knows nothing of Micrometer.
 * <p>
 * Called once per call (and once per redirected command) from caller and executor threads
 * at once, so implementations must be cheap, thread-safe and must not throw. Same-slot
 * calls, which Spring Data Redis serves with one plain command, are not seen.
 */
public interface MultiKeyObserver {

	/**
	 * An observer that ignores everything.
	 */
	MultiKeyObserver NONE = new MultiKeyObserver() {
	};

	/**
	 * Hands out one client's observer: see {@link Observers.Source}.
	 */
	@FunctionalInterface
	interface Source extends Observers.Source<MultiKeyObserver> {

	}

	/**
	 * Returns one observer that passes everything to each of the given ones:
	 * {@link #NONE} for none, the observer itself for one.
	 * @param observers the observers
	 * @return the observer
	 */
	static MultiKeyObserver of(List<MultiKeyObserver> observers) {
		return Observers.combine(observers, NONE, Composite::new);
	}

	/**
	 * Called when a cross-slot call starts, on the caller's thread, before it is planned;
	 * the engine ends what it returns when the call ends (with {@link Observed#SUCCESS}
	 * or {@link Observed#FAILURE}) and starts a child of it for each node batch it sends.
	 * @param command the command
	 * @param keys the number of keys of the call, duplicates included
	 * @return the call's observation; {@link Observed#NONE} by default
	 */
	default Observed start(MultiKeyCommand command, int keys) {
		return Observed.NONE;
	}

	/**
	 * Called when a cross-slot call ends.
	 * @param command the command
	 * @param keys the number of keys of the call, duplicates included
	 * @param success whether the call returned a result rather than throwing
	 * @param durationNanos how long the call took on the caller's thread
	 */
	default void called(MultiKeyCommand command, int keys, boolean success, long durationNanos) {
	}

	/**
	 * Called for each command the server redirected, before the engine sends it again.
	 * @param kind the kind of redirect
	 */
	default void redirected(RedirectKind kind) {
	}

	/**
	 * Passes everything to each observer a list holds at the time of the call, so that
	 * the list may grow (one observer per meter registry, bound later).
	 */
	final class Composite implements MultiKeyObserver {

		private final List<MultiKeyObserver> observers;

		/**
		 * Creates an observer that passes everything to those of the given list.
		 * @param observers the observers, a list that is thread-safe if it changes
		 */
		public Composite(List<MultiKeyObserver> observers) {
			this.observers = observers;
		}

		@Override
		public Observed start(MultiKeyCommand command, int keys) {
			return Observations.start(this.observers, (observer) -> observer.start(command, keys));
		}

		@Override
		public void called(MultiKeyCommand command, int keys, boolean success, long durationNanos) {
			for (MultiKeyObserver observer : this.observers) {
				observer.called(command, keys, success, durationNanos);
			}
		}

		@Override
		public void redirected(RedirectKind kind) {
			for (MultiKeyObserver observer : this.observers) {
				observer.redirected(kind);
			}
		}

	}

}
