package dev.slotwise.internal.multikey;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.RedirectKind;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;

/**
 * What the engine needs from a client library: the current slot owners, and a way to
 * write a batch of commands to one node in one flush and collect the replies.
 */
public interface NodeTransport {

	/**
	 * Returns a snapshot of the slot owners for one round of a call.
	 * @return the master serving each slot, or {@code null} when none does
	 */
	IntFunction<@Nullable NodeAddress> router();

	/**
	 * Sends commands to one node, pipelined, flushing at most {@code maxPerFlush}
	 * commands before reading their replies.
	 * @param node the node
	 * @param requests the commands, in order
	 * @param maxPerFlush the cap on commands per flush
	 * @return one reply per request, in order: {@code byte[]}, {@code Long}, a
	 * {@code List} of {@code byte[]}, a status {@code String}, or an {@link ErrorReply};
	 * completes exceptionally when the node cannot be reached; its cancellation abandons
	 * the requests not yet written where the client allows it
	 */
	CompletableFuture<List<Object>> send(NodeAddress node, List<Request> requests, int maxPerFlush);

	/**
	 * Like {@link #send(NodeAddress, List, int)}, for a call that must end by a deadline:
	 * a transport that holds a thread per batch (Jedis) neither waits for a connection
	 * nor starts a window past it. The default ignores the deadline, for transports whose
	 * caller is never held by a batch (Lettuce; the call's own timer ends it).
	 * @param node the node
	 * @param requests the commands, in order
	 * @param maxPerFlush the cap on commands per flush
	 * @param deadline the {@link System#nanoTime()} by which the call must end
	 * @return as {@link #send(NodeAddress, List, int)}
	 */
	default CompletableFuture<List<Object>> send(NodeAddress node, List<Request> requests, int maxPerFlush,
			long deadline) {
		return send(node, requests, maxPerFlush);
	}

	/**
	 * Starts one round of a call: the batches it sends to several nodes at once (the
	 * first round, or the redirected commands of a reply). The default sends each batch
	 * as it is added; a transport may instead hold some back and send them together when
	 * the round {@linkplain Round#run() runs}.
	 * @param maxPerFlush the cap on commands per flush
	 * @param deadline the {@link System#nanoTime()} by which the call must end
	 * @return the round
	 */
	default Round round(int maxPerFlush, long deadline) {
		return new Round() {

			@Override
			public CompletableFuture<List<Object>> add(NodeAddress node, List<Request> requests) {
				return send(node, requests, maxPerFlush, deadline);
			}

			@Override
			public void run() {
			}

		};
	}

	/**
	 * Runs a task once a delay has passed, on a timer that the client behind the
	 * transport owns (so that it ends with the client): the deadline of a call no thread
	 * waits for.
	 * @param task the task, which must be quick (it runs on the timer's thread)
	 * @param delayNanos the delay; zero or less runs it as soon as possible
	 * @return cancels the task
	 * @throws UnsupportedOperationException when the transport runs no asynchronous calls
	 */
	Runnable schedule(Runnable task, long delayNanos);

	/**
	 * Translates a failure of {@link #send(NodeAddress, List, int)} the way Spring Data
	 * Redis translates the client library's exceptions, so that the call fails with the
	 * same type as without Slotwise.
	 * @param failure the failure
	 * @return the translation, or {@code null} when the client's translation knows no
	 * type for it
	 */
	default @Nullable DataAccessException translate(Throwable failure) {
		return null;
	}

	/**
	 * Returns whether Spring Data Redis reports the client's error replies as
	 * {@code InvalidDataAccessApiUsageException} (Jedis) rather than
	 * {@code RedisSystemException} (Lettuce).
	 * @return whether error replies are API usage errors
	 */
	default boolean errorRepliesAreApiUsageErrors() {
		return false;
	}

	/**
	 * Tells the client library of a redirect a node answered to one of the engine's
	 * commands, where the library tells its own listeners of the redirects its commands
	 * meet (Lettuce publishes events on its event bus). The default does nothing (Jedis
	 * has no such listeners).
	 * @param kind {@code MOVED} or {@code ASK}
	 * @param command the command that met it
	 * @param firstKey the command's first key
	 * @param slot the slot of its keys
	 * @param message the error line, e.g. {@code MOVED 3999 127.0.0.1:6381}
	 */
	default void redirected(RedirectKind kind, MultiKeyCommand command, byte[] firstKey, int slot, String message) {
	}

	/**
	 * Tells the topology source that slots moved ({@code MOVED}) or a node failed, so the
	 * next lookup refreshes.
	 */
	void invalidateTopology();

	/**
	 * Like {@link #invalidateTopology()}, from a call routed at a known time: a transport
	 * whose topology source applied a change since then may ignore it (the change
	 * explains the failure or redirect). The default ignores the time.
	 * @param routedAt the {@link System#nanoTime()} at which the call began routing
	 */
	default void invalidateTopology(long routedAt) {
		invalidateTopology();
	}

	/**
	 * The batches of one round of a call, one per node.
	 */
	interface Round {

		/**
		 * Adds a node's batch.
		 * @param node the node
		 * @param requests the commands, in order
		 * @return as {@link NodeTransport#send(NodeAddress, List, int)}; a batch held
		 * back completes during {@link #run()}
		 */
		CompletableFuture<List<Object>> add(NodeAddress node, List<Request> requests);

		/**
		 * Sends the batches held back, on the calling thread, and returns once each of
		 * their futures is complete; never throws (failures complete the futures).
		 */
		void run();

	}

	/**
	 * One command for one node.
	 *
	 * @param command the command
	 * @param args the arguments (keys, or keys and values)
	 * @param asking whether {@code ASKING} must precede it (after an {@code ASK}
	 * redirect)
	 * @param redirected whether a redirect ({@code MOVED}, {@code ASK}, {@code TRYAGAIN})
	 * named its node, which then serves it itself (never a replica of it)
	 */
	record Request(MultiKeyCommand command, byte[][] args, boolean asking, boolean redirected) {

		/** The commands that only read. */
		static final Set<MultiKeyCommand> READS = Set.copyOf(EnumSet.of(MultiKeyCommand.MGET, MultiKeyCommand.EXISTS));

		/**
		 * A command routed by its slot, or one after {@code ASK} when {@code asking}.
		 * @param command the command
		 * @param args the arguments
		 * @param asking whether {@code ASKING} must precede it
		 */
		public Request(MultiKeyCommand command, byte[][] args, boolean asking) {
			this(command, args, asking, asking);
		}

		/**
		 * The rule over Jedis, which has no setting for it, of which batches a replica
		 * may serve: reads only ({@code MGET}, {@code EXISTS}), none of them sent to a
		 * node a redirect named ({@code MOVED}, {@code ASK}, {@code TRYAGAIN}: that node
		 * serves it itself).
		 * @param requests a batch for one node
		 * @return whether a replica of the slot's master may serve the batch
		 */
		public static boolean replicaMayServe(List<Request> requests) {
			return replicaMayServe(requests, READS);
		}

		/**
		 * The rule of which batches a replica may serve: only commands the client counts
		 * as reads (over Lettuce, its {@code ClientOptions.getReadOnlyCommands()}), none
		 * of them sent to a node a redirect named.
		 * @param requests a batch for one node
		 * @param reads the commands that count as reads
		 * @return whether a replica of the slot's master may serve the batch
		 */
		public static boolean replicaMayServe(List<Request> requests, Set<MultiKeyCommand> reads) {
			for (Request request : requests) {
				if (request.redirected() || !reads.contains(request.command())) {
					return false;
				}
			}
			return true;
		}

	}

	/**
	 * An error reply of the server.
	 *
	 * @param message the error line, e.g. {@code MOVED 3999 127.0.0.1:6381}
	 */
	record ErrorReply(String message) {
	}

}
