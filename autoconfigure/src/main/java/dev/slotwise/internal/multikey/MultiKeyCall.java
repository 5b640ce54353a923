package dev.slotwise.internal.multikey;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

import dev.slotwise.internal.observed.Observed;
import dev.slotwise.internal.multikey.Failures.Kind;
import dev.slotwise.internal.multikey.NodeTransport.ErrorReply;
import dev.slotwise.internal.multikey.NodeTransport.Request;
import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.RedirectKind;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;

/**
 * The state of one multi-key call while its node batches are in flight: routes its
 * {@link SlotCommand}s to nodes, sends one batch per node, gathers replies into the
 * {@link ReplyAccumulator}, sends redirected commands again, and ends exactly once — with
 * every command answered, or with the first failure or the deadline, cancelling whatever
 * is still in flight.
 * <p>
 * A count of outstanding batches, plus one guard held while a round is being dispatched,
 * tells when every reply is in; replies arrive on transport threads in any order.
 *
 * @param <R> the call's result
 */
final class MultiKeyCall<R> {

	private final NodeTransport transport;

	private final MultiKeySettings settings;

	private final MultiKeyObserver observer;

	/** The call's observation, parent of one observation per node batch. */
	private final Observed observed;

	private final MultiKeyCommand command;

	private final byte[][] keys;

	private final byte @Nullable [][] values;

	private final ReplyAccumulator<R> replies;

	private final AtomicInteger pending = new AtomicInteger();

	private final Set<InFlight> inFlight = ConcurrentHashMap.newKeySet();

	private final CompletableFuture<Void> done = new CompletableFuture<>();

	/**
	 * Set once, by the first failure, before it cancels the batches in flight and ends
	 * the call.
	 */
	private final AtomicReference<DataAccessException> failure = new AtomicReference<>();

	private final long deadline;

	/**
	 * When the call began: it routes with the topology known then, or later (redirected
	 * commands).
	 */
	private final long started = System.nanoTime();

	/**
	 * @param transport the client behind the call
	 * @param settings the limits
	 * @param observer sees redirects
	 * @param observed the call's observation, whose children the node batches are
	 * @param command the command
	 * @param keys the keys in the caller's order
	 * @param values the values, one per key, for commands that carry them
	 * @param replies gathers the replies
	 * @param deadline the {@link System#nanoTime()} by which the call must end
	 */
	MultiKeyCall(NodeTransport transport, MultiKeySettings settings, MultiKeyObserver observer, Observed observed,
			MultiKeyCommand command, byte[][] keys, byte @Nullable [][] values, ReplyAccumulator<R> replies,
			long deadline) {
		this.transport = transport;
		this.settings = settings;
		this.observer = observer;
		this.observed = observed;
		this.command = command;
		this.keys = keys;
		this.values = values;
		this.replies = replies;
		this.deadline = deadline;
	}

	/**
	 * Sends the commands and waits for the call to end, on the caller's thread.
	 * @param commands the planned commands
	 * @return the result
	 * @throws DataAccessException a {@link dev.slotwise.multikey.MultiKeyFailure} when a
	 * node fails, a reply is an error, redirects run out, or the deadline passes
	 */
	R run(List<SlotCommand> commands) {
		begin(commands);
		await();
		return this.replies.result();
	}

	/**
	 * Sends the commands and returns at once: the future completes from the transport's
	 * callbacks, or with a {@link dev.slotwise.multikey.MultiKeyFailure} on failure or at
	 * the deadline (a task on the transport's timer, so no thread waits). Cancelling the
	 * future cancels the node batches still in flight.
	 * @param commands the planned commands
	 * @return the result to come
	 */
	CompletableFuture<R> start(List<SlotCommand> commands) {
		CompletableFuture<R> result = new CompletableFuture<>();
		this.done.whenComplete((ignored, failure) -> {
			if (failure != null) {
				result.completeExceptionally(unwrap(failure));
				return;
			}
			try {
				result.complete(this.replies.result());
			}
			catch (RuntimeException ex) {
				result.completeExceptionally(ex);
			}
		});
		result.whenComplete((value, failure) -> {
			if (result.isCancelled()) {
				fail(failure(Kind.OTHER, this.command + " cancelled", List.of(), List.of(), null));
			}
		});
		begin(commands);
		if (!this.done.isDone()) {
			Runnable cancelTimer = this.transport.schedule(this::expire, this.deadline - System.nanoTime());
			this.done.whenComplete((ignored, failure) -> cancelTimer.run());
		}
		return result;
	}

	private void begin(List<SlotCommand> commands) {
		// The guard keeps the call open until every first-round batch is sent, even if
		// one completes at once.
		this.pending.incrementAndGet();
		dispatch(commands);
		release();
	}

	private void dispatch(List<SlotCommand> commands) {
		if (isOver()) {
			return;
		}
		IntFunction<@Nullable NodeAddress> router = null;
		Map<NodeAddress, List<SlotCommand>> byNode = new LinkedHashMap<>();
		for (SlotCommand command : commands) {
			NodeAddress node = command.target();
			if (node == null) {
				if (router == null) {
					try {
						router = this.transport.router();
					}
					catch (RuntimeException ex) {
						fail(failure(Failures.classify(ex, this.transport), this.command + " failed: no topology",
								List.of(), slotsOf(commands), ex));
						return;
					}
				}
				node = router.apply(command.slot());
			}
			if (node == null) {
				this.transport.invalidateTopology(this.started);
				fail(failure(Kind.OTHER, this.command + " failed: no master serves the slot", List.of(),
						List.of(command.slot()), null));
				return;
			}
			byNode.computeIfAbsent(node, (n) -> new ArrayList<>()).add(command);
		}
		NodeTransport.Round round = this.transport.round(this.settings.maxCommandsPerPipeline(), this.deadline);
		byNode.forEach((node, batch) -> send(round, node, batch));
		round.run();
	}

	private void send(NodeTransport.Round round, NodeAddress node, List<SlotCommand> commands) {
		if (isOver()) {
			// Failed or timed out while earlier batches of this round were being
			// submitted: send nothing more.
			return;
		}
		List<Request> requests = new ArrayList<>(commands.size());
		for (SlotCommand command : commands) {
			requests.add(new Request(command.command(), args(command.positions()), command.asking(),
					command.target() != null));
		}
		InFlight batch = new InFlight(node, commands);
		this.pending.incrementAndGet();
		this.inFlight.add(batch);
		Observed observedBatch = this.observed.batch(node, requests.size());
		CompletableFuture<List<Object>> future;
		// In the batch's scope, a transport whose client observes its own commands
		// (Lettuce's tracing) makes them the batch's children: it reads the current
		// observation while sending, on this thread.
		try (Observed.Scope scope = observedBatch.open()) {
			future = round.add(node, requests);
		}
		catch (RuntimeException ex) {
			future = CompletableFuture.failedFuture(ex);
		}
		batch.future = future;
		if (isOver()) {
			future.cancel(true);
		}
		future.whenComplete((answers, failure) -> {
			if (failure != null && System.nanoTime() - this.deadline >= 0) {
				// Failed once the deadline passed (over Jedis a read bounded by it): the
				// call timed out, reported as when the caller's wait ends first, naming
				// every batch still in flight, this one included.
				expire();
			}
			this.inFlight.remove(batch);
			observedBatch.end((failure == null) ? Observed.SUCCESS : Observed.FAILURE,
					(failure != null) ? unwrap(failure) : null);
			try {
				if (failure != null) {
					Throwable cause = unwrap(failure);
					if (!(cause instanceof CancellationException)) {
						this.transport.invalidateTopology(this.started);
						fail(failure(classify(cause), this.command + " failed", List.of(node.toString()),
								slotsOf(commands), cause));
					}
				}
				else {
					handle(node, commands, answers);
				}
			}
			catch (RuntimeException ex) {
				fail(failure(Failures.classify(ex, this.transport), this.command + " failed", List.of(node.toString()),
						slotsOf(commands), ex));
			}
			finally {
				release();
			}
		});
	}

	private void handle(NodeAddress node, List<SlotCommand> commands, List<Object> answers) {
		if (isOver()) {
			return;
		}
		if (answers.size() != commands.size()) {
			throw new IllegalStateException("Expected " + commands.size() + " replies, got " + answers.size());
		}
		List<SlotCommand> again = new ArrayList<>();
		boolean moved = false;
		for (int i = 0; i < commands.size(); i++) {
			SlotCommand command = commands.get(i);
			Object answer = answers.get(i);
			if (!(answer instanceof ErrorReply error)) {
				this.replies.accept(command.command(), command.positions(), answer);
				continue;
			}
			String message = error.message();
			Redirect redirect = Redirect.parse(message, node);
			if (redirect == null) {
				fail(failure(Kind.ERROR_REPLY, this.command + " failed (" + command.path(node, message) + ")",
						List.of(node.toString()), List.of(command.slot()), null));
				return;
			}
			if (command.attempt() >= this.settings.maxRedirects()) {
				fail(failure(Kind.ERROR_REPLY,
						this.command + " failed after " + command.attempt() + " redirects ("
								+ command.path(node, message) + ")",
						List.of(node.toString()), List.of(command.slot()), null));
				return;
			}
			this.observer.redirected(redirect.kind());
			if (redirect.kind() != RedirectKind.TRYAGAIN) {
				this.transport.redirected(redirect.kind(), command.command(), this.keys[command.positions()[0]],
						command.slot(), message);
			}
			switch (redirect.kind()) {
				case MOVED -> {
					moved = true;
					again.add(command.redirected(node, message, redirect));
				}
				case ASK -> again.add(command.redirected(node, message, redirect));
				case TRYAGAIN -> again.addAll(command.split(node, message));
			}
		}
		if (moved) {
			this.transport.invalidateTopology(this.started);
		}
		if (!again.isEmpty()) {
			dispatch(again);
		}
	}

	private byte[][] args(int[] positions) {
		byte[][] input = this.values;
		if (input == null) {
			byte[][] args = new byte[positions.length][];
			for (int i = 0; i < positions.length; i++) {
				args[i] = this.keys[positions[i]];
			}
			return args;
		}
		byte[][] args = new byte[positions.length * 2][];
		for (int i = 0; i < positions.length; i++) {
			args[2 * i] = this.keys[positions[i]];
			args[2 * i + 1] = input[positions[i]];
		}
		return args;
	}

	private void await() {
		try {
			// The deadline counts from the start of the call, planning included.
			this.done.get(Math.max(0, this.deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			DataAccessException timeout = expire();
			if (timeout != null) {
				throw timeout;
			}
			await();
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof DataAccessException failure
					&& cause instanceof dev.slotwise.multikey.MultiKeyFailure) {
				// Rethrown on the caller's thread with its own stack, keeping the
				// original as the cause chain.
				throw Failures.rethrown(failure, this.transport);
			}
			throw failure((cause != null) ? Failures.classify(cause, this.transport) : Kind.OTHER,
					this.command + " failed", List.of(), List.of(), cause);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			DataAccessException interrupted = failure(Kind.OTHER, this.command + " interrupted", List.of(), List.of(),
					ex);
			fail(interrupted);
			throw interrupted;
		}
	}

	/**
	 * Ends the call at its deadline, naming the nodes and slots still in flight.
	 * @return the exception that ended the call, or {@code null} when it had already
	 * ended
	 */
	private @Nullable DataAccessException expire() {
		Set<String> nodes = new HashSet<>();
		Set<Integer> slots = new HashSet<>();
		for (InFlight batch : this.inFlight) {
			nodes.add(batch.node.toString());
			slots.addAll(slotsOf(batch.commands));
		}
		DataAccessException timeout = failure(Kind.TIMEOUT,
				this.command + " timed out after " + this.settings.timeout().toMillis() + " ms", nodes, slots, null);
		if (!fail(timeout)) {
			return null;
		}
		this.transport.invalidateTopology(this.started);
		return timeout;
	}

	private void release() {
		// A failed call is ended by fail(); the batches it cancels release their count on
		// the way out and must not complete the call as if every reply were in.
		if (this.pending.decrementAndGet() == 0 && this.failure.get() == null) {
			this.done.complete(null);
		}
	}

	/**
	 * Ends the call with a failure, unless it already ended. The batches still in flight
	 * are cancelled before the caller is released, so that no batch of a failed call is
	 * still being written when the caller sees the failure; a batch sent meanwhile sees
	 * the failure recorded first and cancels itself.
	 * @return whether this failure ended the call
	 */
	private boolean fail(DataAccessException ex) {
		if (!this.failure.compareAndSet(null, ex)) {
			return false;
		}
		for (InFlight batch : this.inFlight) {
			CompletableFuture<List<Object>> future = batch.future;
			if (future != null) {
				future.cancel(true);
			}
		}
		return this.done.completeExceptionally(ex);
	}

	private Kind classify(Throwable cause) {
		// A batch that fails once the deadline passed failed because of it: over Jedis
		// the deadline ends a read by closing or timing out its socket, which would
		// otherwise read as a connection failure.
		return (System.nanoTime() - this.deadline >= 0) ? Kind.TIMEOUT : Failures.classify(cause, this.transport);
	}

	private DataAccessException failure(Kind kind, String what, java.util.Collection<String> nodes,
			java.util.Collection<Integer> slots, @Nullable Throwable cause) {
		return Failures.create(kind, this.transport, what, nodes, slots, cause);
	}

	private boolean isOver() {
		return this.failure.get() != null || this.done.isDone();
	}

	private static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	private static List<Integer> slotsOf(List<SlotCommand> commands) {
		List<Integer> slots = new ArrayList<>(commands.size());
		for (SlotCommand command : commands) {
			slots.add(command.slot());
		}
		return slots;
	}

	/**
	 * One node batch on its way.
	 */
	private static final class InFlight {

		private final NodeAddress node;

		private final List<SlotCommand> commands;

		private volatile @Nullable CompletableFuture<List<Object>> future;

		InFlight(NodeAddress node, List<SlotCommand> commands) {
			this.node = node;
			this.commands = commands;
		}

	}

}
