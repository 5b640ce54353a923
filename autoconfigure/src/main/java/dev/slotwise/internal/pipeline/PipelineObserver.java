package dev.slotwise.internal.pipeline;

import java.util.List;

import dev.slotwise.internal.observed.Observations;
import dev.slotwise.internal.observed.Observed;
import dev.slotwise.internal.observed.Observers;
import dev.slotwise.internal.routing.RedirectKind;

/**
 * Sees what cluster pipelines do: each {@code closePipeline()} and each redirected
 * command. Meters implement it; the pipeline knows nothing of Micrometer. Called from
 * caller and executor threads, so implementations must be cheap, thread-safe and must not
 * throw.
 */
public interface PipelineObserver {

	/** Outcome of a pipeline whose every command succeeded. */
	String SUCCESS = "success";

	/**
	 * Outcome of a pipeline in which some commands failed with an error reply (the others
	 * have results).
	 */
	String COMMAND_ERROR = "command_error";

	/**
	 * Outcome of a pipeline that failed as a whole (a node could not be reached, or timed
	 * out).
	 */
	String FAILURE = "failure";

	/**
	 * An observer that ignores everything.
	 */
	PipelineObserver NONE = new PipelineObserver() {
	};

	/**
	 * Hands out one client's observer: see {@link Observers.Source}.
	 */
	@FunctionalInterface
	interface Source extends Observers.Source<PipelineObserver> {

	}

	/**
	 * Returns one observer that passes everything to each of the given ones:
	 * {@link #NONE} for none, the observer itself for one.
	 * @param observers the observers
	 * @return the observer
	 */
	static PipelineObserver of(List<PipelineObserver> observers) {
		return Observers.combine(observers, NONE, Composite::new);
	}

	/**
	 * Called when {@code closePipeline()} starts, on the caller's thread; the pipeline
	 * ends what it returns with {@link #SUCCESS}, {@link #COMMAND_ERROR} or
	 * {@link #FAILURE}, starts a child of it for each node batch it sends, and keeps it
	 * current on the caller's thread meanwhile (a cross-slot multi-key command of the
	 * pipeline is observed as its child).
	 * @param commands the number of queued commands
	 * @return the pipeline's observation; {@link Observed#NONE} by default
	 */
	default Observed start(int commands) {
		return Observed.NONE;
	}

	/**
	 * Called when {@code closePipeline()} ends.
	 * @param commands the number of queued commands
	 * @param nodes the number of masters the commands went to (first attempt)
	 * @param outcome {@link #SUCCESS}, {@link #COMMAND_ERROR} or {@link #FAILURE}
	 * @param durationNanos how long {@code closePipeline()} took
	 */
	default void closed(int commands, int nodes, String outcome, long durationNanos) {
	}

	/**
	 * Called for each queued command a server redirected, before it is sent again.
	 * @param kind the redirect
	 */
	default void redirected(RedirectKind kind) {
	}

	/**
	 * Passes everything to each observer a list holds at the time of the call, so that
	 * the list may grow (one observer per meter registry, bound later).
	 */
	final class Composite implements PipelineObserver {

		private final List<PipelineObserver> observers;

		/**
		 * Creates an observer that passes everything to those of the given list.
		 * @param observers the observers, a list that is thread-safe if it changes
		 */
		public Composite(List<PipelineObserver> observers) {
			this.observers = observers;
		}

		@Override
		public Observed start(int commands) {
			return Observations.start(this.observers, (observer) -> observer.start(commands));
		}

		@Override
		public void closed(int commands, int nodes, String outcome, long durationNanos) {
			for (PipelineObserver observer : this.observers) {
				observer.closed(commands, nodes, outcome, durationNanos);
			}
		}

		@Override
		public void redirected(RedirectKind kind) {
			for (PipelineObserver observer : this.observers) {
				observer.redirected(kind);
			}
		}

	}

}
