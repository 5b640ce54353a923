package dev.slotwise.internal.pipeline;

import dev.slotwise.internal.routing.RedirectKind;

/**
 * Sees what cluster pipelines do: each {@code closePipeline()} and each redirected command. Meters implement it; the
 * pipeline knows nothing of Micrometer. Called from caller and executor threads, so implementations must be cheap,
 * thread-safe and must not throw.
 */
public interface PipelineObserver {

	/** Outcome of a pipeline whose every command succeeded. */
	String SUCCESS = "success";

	/** Outcome of a pipeline in which some commands failed with an error reply (the others have results). */
	String COMMAND_ERROR = "command_error";

	/** Outcome of a pipeline that failed as a whole (a node could not be reached, or timed out). */
	String FAILURE = "failure";

	/**
	 * An observer that ignores everything.
	 */
	PipelineObserver NONE = new PipelineObserver() {
	};

	/**
	 * Hands out one client's observer ({@code jedis}, {@code lettuce}). The meters implement it, and the
	 * auto-configuration asks for this type rather than theirs, so that an application without Micrometer never loads
	 * a class that needs it.
	 */
	@FunctionalInterface
	interface Source {

		/**
		 * Returns the observer of a client.
		 * @param client the client tag
		 * @return the observer, the same for every call with the same client
		 */
		PipelineObserver forClient(String client);

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

}
