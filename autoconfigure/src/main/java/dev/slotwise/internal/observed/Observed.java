package dev.slotwise.internal.observed;

import dev.slotwise.internal.routing.NodeAddress;
import org.jspecify.annotations.Nullable;

/**
 * One operation an observer watches from its start to its end: a multi-key call or a
 * pipeline, and each node batch it sends, as a child. Observations (tracing spans,
 * timers) implement it; the engine only starts, scopes and ends it, and knows nothing of
 * Micrometer. {@link #NONE} costs one virtual call per operation and batch.
 * <p>
 * Each instance is ended exactly once, possibly on another thread than the one that
 * started it; children may be started and ended concurrently. Implementations must be
 * thread-safe and must not throw.
 */
public interface Observed {

	/** Outcome of an operation that returned its result. */
	String SUCCESS = "success";

	/** Outcome of an operation that threw, or whose node batch failed as a whole. */
	String FAILURE = "failure";

	/**
	 * An operation nobody watches.
	 */
	Observed NONE = new Observed() {
	};

	/**
	 * Starts the observation of one node batch of this operation.
	 * @param node the node the batch goes to
	 * @param commands the number of commands in the batch
	 * @return the batch's observation, to be ended when the batch ends
	 */
	default Observed batch(NodeAddress node, int commands) {
		return NONE;
	}

	/**
	 * Makes this operation the current one on the calling thread until the scope closes,
	 * so that what the thread starts meanwhile (a client library's own per-command
	 * observations, a nested call) becomes its child. Closed on the same thread.
	 * @return the scope to close
	 */
	default Scope open() {
		return Scope.NONE;
	}

	/**
	 * Sets the size of an operation whose size is known only when it ends (the commands a
	 * transaction queued); called before {@link #end}.
	 * @param size the number of commands
	 */
	default void resize(int size) {
	}

	/**
	 * Ends the observation.
	 * @param outcome {@link #SUCCESS}, {@link #FAILURE}, or another outcome the operation
	 * documents
	 * @param failure what ended it abnormally, or {@code null}
	 */
	default void end(String outcome, @Nullable Throwable failure) {
	}

	/**
	 * A scope opened by {@link #open()}.
	 */
	@FunctionalInterface
	interface Scope extends AutoCloseable {

		/** A scope that does nothing. */
		Scope NONE = () -> {
		};

		@Override
		void close();

	}

}
