package dev.slotwise.multikey;

import java.util.ArrayList;
import java.util.Arrays;
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
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

import dev.slotwise.multikey.NodeTransport.ErrorReply;
import dev.slotwise.multikey.NodeTransport.Request;
import dev.slotwise.routing.Chunks;
import dev.slotwise.routing.NodeAddress;
import dev.slotwise.routing.SlotGroup;
import dev.slotwise.routing.SlotPlan;
import org.jspecify.annotations.Nullable;

/**
 * Runs one multi-key call: plans keys by slot and slots by node, sends each node one pipelined batch of per-slot
 * commands, follows {@code MOVED}/{@code ASK}/{@code TRYAGAIN} for the affected commands only, and gathers the
 * replies in the caller's order. Client specifics live behind {@link NodeTransport}.
 */
final class MultiKeyEngine {

	/** Start of the error reply redirecting a slot for good. */
	static final String MOVED = "MOVED ";

	/** Start of the error reply redirecting one command to a slot's importing node. */
	static final String ASK = "ASK ";

	/** Start of the error reply refusing a multi-key command whose keys a slot migration split. */
	static final String TRYAGAIN = "TRYAGAIN";

	private final NodeTransport transport;

	private final MultiKeySettings settings;

	private final MultiKeyObserver observer;

	MultiKeyEngine(NodeTransport transport, MultiKeySettings settings) {
		this(transport, settings, MultiKeyObserver.NONE);
	}

	MultiKeyEngine(NodeTransport transport, MultiKeySettings settings, MultiKeyObserver observer) {
		this.transport = transport;
		this.settings = settings;
		this.observer = observer;
	}

	MultiKeySettings settings() {
		return this.settings;
	}

	/**
	 * Reads keys that span slots.
	 * @param keys the keys, at least one
	 * @return the values in the caller's order, null for missing keys
	 */
	List<byte @Nullable []> mGet(byte[][] keys) {
		Call call = new Call(MultiKeyOp.MGET, keys, null, this.settings.timeout().toNanos());
		run(call);
		return Arrays.asList(call.values);
	}

	/**
	 * Writes keys that span slots, one {@code MSET} per slot.
	 * @param keys the keys
	 * @param values the values, one per key
	 */
	void mSet(byte[][] keys, byte[][] values) {
		run(new Call(MultiKeyOp.MSET, keys, values, this.settings.timeout().toNanos()));
	}

	/**
	 * Runs a counting command ({@code DEL}, {@code UNLINK}, {@code EXISTS}) on keys that span slots.
	 * @param op the command
	 * @param keys the keys
	 * @return the sum of the per-slot replies
	 */
	long count(MultiKeyOp op, byte[][] keys) {
		Call call = new Call(op, keys, null, this.settings.timeout().toNanos());
		run(call);
		return call.count.get();
	}

	private void run(Call call) {
		boolean success = false;
		try {
			SlotPlan plan = SlotPlan.of(call.keys);
			List<Unit> units = new ArrayList<>(plan.groups().size());
			int maxKeys = this.settings.maxKeysPerCommand();
			String command = call.op.name();
			for (SlotGroup group : plan.groups()) {
				int[] positions = group.positions();
				if (positions.length <= maxKeys) {
					units.add(new Unit(command, group.slot(), positions, null, false, 0, ""));
					continue;
				}
				for (int[] chunk : Chunks.of(positions, maxKeys)) {
					units.add(new Unit(command, group.slot(), chunk, null, false, 0, ""));
				}
			}
			// A guard count keeps the call open until every first-round batch is sent, even if one completes at once.
			call.pending.incrementAndGet();
			dispatch(call, units);
			call.release();
			await(call);
			success = true;
		}
		finally {
			this.observer.called(call.op.command(), call.keys.length, success,
					System.nanoTime() - call.started);
		}
	}

	private void dispatch(Call call, List<Unit> units) {
		if (call.done.isDone()) {
			return;
		}
		IntFunction<@Nullable NodeAddress> router = null;
		Map<NodeAddress, List<Unit>> byNode = new LinkedHashMap<>();
		for (Unit unit : units) {
			NodeAddress node = unit.target;
			if (node == null) {
				if (router == null) {
					try {
						router = this.transport.router();
					}
					catch (RuntimeException ex) {
						call.fail(new MultiKeyException(call.op + " failed: no topology", List.of(), slotsOf(units),
								ex));
						return;
					}
				}
				node = router.apply(unit.slot);
			}
			if (node == null) {
				this.transport.invalidateTopology();
				call.fail(new MultiKeyException(call.op + " failed: no master serves the slot", List.of(),
						List.of(unit.slot), null));
				return;
			}
			byNode.computeIfAbsent(node, (n) -> new ArrayList<>()).add(unit);
		}
		byNode.forEach((node, nodeUnits) -> send(call, node, nodeUnits));
	}

	private void send(Call call, NodeAddress node, List<Unit> units) {
		List<Request> requests = new ArrayList<>(units.size());
		for (Unit unit : units) {
			requests.add(new Request(unit.command, call.args(unit), unit.asking));
		}
		InFlight inFlight = new InFlight(node, units);
		call.pending.incrementAndGet();
		call.inFlight.add(inFlight);
		CompletableFuture<List<Object>> future;
		try {
			future = this.transport.send(node, requests, this.settings.maxCommandsPerPipeline());
		}
		catch (RuntimeException ex) {
			future = CompletableFuture.failedFuture(ex);
		}
		inFlight.future = future;
		if (call.done.isDone()) {
			future.cancel(true);
		}
		future.whenComplete((replies, failure) -> {
			call.inFlight.remove(inFlight);
			try {
				if (failure != null) {
					Throwable cause = unwrap(failure);
					if (!(cause instanceof CancellationException)) {
						this.transport.invalidateTopology();
						call.fail(new MultiKeyException(call.op + " failed", List.of(node.toString()),
								slotsOf(units), cause));
					}
				}
				else {
					handle(call, node, units, replies);
				}
			}
			catch (RuntimeException ex) {
				call.fail(new MultiKeyException(call.op + " failed", List.of(node.toString()), slotsOf(units), ex));
			}
			finally {
				call.release();
			}
		});
	}

	private void handle(Call call, NodeAddress node, List<Unit> units, List<Object> replies) {
		if (call.done.isDone()) {
			return;
		}
		if (replies.size() != units.size()) {
			throw new IllegalStateException("Expected " + units.size() + " replies, got " + replies.size());
		}
		List<Unit> retries = new ArrayList<>();
		boolean moved = false;
		for (int i = 0; i < units.size(); i++) {
			Unit unit = units.get(i);
			Object reply = replies.get(i);
			if (!(reply instanceof ErrorReply error)) {
				call.accept(unit, reply);
				continue;
			}
			String message = error.message();
			if (unit.attempt >= this.settings.maxRedirects()) {
				call.fail(new MultiKeyException(call.op + " failed after " + unit.attempt + " redirects ("
						+ unit.path(node, message) + ")", List.of(node.toString()), List.of(unit.slot), null));
				return;
			}
			if (message.startsWith(MOVED)) {
				this.observer.redirected(MultiKeyObserver.MOVED);
				moved = true;
				retries.add(unit.redirect(node, message, target(message, node), false));
			}
			else if (message.startsWith(ASK)) {
				this.observer.redirected(MultiKeyObserver.ASK);
				retries.add(unit.redirect(node, message, target(message, node), true));
			}
			else if (message.startsWith(TRYAGAIN)) {
				this.observer.redirected(MultiKeyObserver.TRYAGAIN);
				// A slot being migrated refuses multi-key commands whose keys are split between source and target;
				// single-key commands are always served (or redirected) at once, so no waiting is needed.
				retries.addAll(unit.split(call.op, node, message));
			}
			else {
				call.fail(new MultiKeyException(call.op + " failed (" + message + ")", List.of(node.toString()),
						List.of(unit.slot), null));
				return;
			}
		}
		if (moved) {
			this.transport.invalidateTopology();
		}
		if (!retries.isEmpty()) {
			dispatch(call, retries);
		}
	}

	private static NodeAddress target(String redirect, NodeAddress from) {
		// "MOVED 3999 127.0.0.1:6381"; an empty host (":6381") means the host the client already talks to.
		String[] parts = redirect.split(" ");
		String endpoint = parts[2];
		return endpoint.startsWith(":") ? new NodeAddress(from.host(), Integer.parseInt(endpoint.substring(1)))
				: NodeAddress.parse(endpoint);
	}

	private void await(Call call) {
		try {
			// The deadline counts from the start of the call, planning included.
			call.done.get(Math.max(0, call.deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			Set<String> nodes = new HashSet<>();
			Set<Integer> slots = new HashSet<>();
			for (InFlight inFlight : call.inFlight) {
				nodes.add(inFlight.node.toString());
				slots.addAll(slotsOf(inFlight.units));
			}
			MultiKeyException timeout = new MultiKeyException(
					call.op + " timed out after " + this.settings.timeout().toMillis() + " ms", nodes, slots, null);
			if (call.fail(timeout)) {
				this.transport.invalidateTopology();
				throw timeout;
			}
			await(call);
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof MultiKeyException multiKey) {
				// Rethrown on the caller's thread with its own stack, keeping the original as the cause chain.
				throw new MultiKeyException(multiKey.what(), multiKey.getNodes(), multiKey.getSlots(),
						(multiKey.getCause() != null) ? multiKey.getCause() : multiKey);
			}
			throw new MultiKeyException(call.op + " failed", List.of(), List.of(), cause);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			MultiKeyException interrupted = new MultiKeyException(call.op + " interrupted", List.of(), List.of(), ex);
			call.fail(interrupted);
			throw interrupted;
		}
	}

	private static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	private static List<Integer> slotsOf(List<Unit> units) {
		List<Integer> slots = new ArrayList<>(units.size());
		for (Unit unit : units) {
			slots.add(unit.slot);
		}
		return slots;
	}

	/**
	 * One command of a call: some keys of one slot, where to send them, how often they were redirected and the
	 * redirects so far (for the error that names them when there are too many).
	 */
	private record Unit(String command, int slot, int[] positions, @Nullable NodeAddress target, boolean asking,
			int attempt, String trail) {

		Unit redirect(NodeAddress from, String reply, NodeAddress to, boolean ask) {
			return new Unit(this.command, this.slot, this.positions, to, ask, this.attempt + 1, hop(from, reply));
		}

		List<Unit> split(MultiKeyOp op, NodeAddress node, String reply) {
			String trail = hop(node, reply);
			if (this.positions.length == 1) {
				return List.of(new Unit(this.command, this.slot, this.positions, node, this.asking, this.attempt + 1,
						trail));
			}
			List<Unit> units = new ArrayList<>(this.positions.length);
			for (int position : this.positions) {
				units.add(new Unit(op.singleKeyCommand(), this.slot, new int[] { position }, node, this.asking,
						this.attempt + 1, trail));
			}
			return units;
		}

		private String hop(NodeAddress node, String reply) {
			int end = reply.indexOf(' ');
			return path(node, (end < 0) ? reply : reply.substring(0, end)) + ", ";
		}

		/**
		 * Describes every hop of this command, the last one with the server's whole reply.
		 */
		String path(NodeAddress node, String reply) {
			return this.trail + this.command + ((this.asking) ? " (asking)" : "") + " at " + node + ": " + reply;
		}

	}

	private static final class InFlight {

		private final NodeAddress node;

		private final List<Unit> units;

		private volatile @Nullable CompletableFuture<List<Object>> future;

		InFlight(NodeAddress node, List<Unit> units) {
			this.node = node;
			this.units = units;
		}

	}

	private static final class Call {

		private final MultiKeyOp op;

		private final byte[][] keys;

		private final byte @Nullable [][] input;

		private final byte @Nullable [][] values;

		private final AtomicLong count = new AtomicLong();

		private final AtomicInteger pending = new AtomicInteger();

		private final Set<InFlight> inFlight = ConcurrentHashMap.newKeySet();

		private final CompletableFuture<Void> done = new CompletableFuture<>();

		private final long started = System.nanoTime();

		private final long deadline;

		Call(MultiKeyOp op, byte[][] keys, byte @Nullable [][] input, long timeoutNanos) {
			this.deadline = this.started + timeoutNanos;
			this.op = op;
			this.keys = keys;
			this.input = input;
			this.values = (op == MultiKeyOp.MGET) ? new byte[keys.length][] : null;
		}

		byte[][] args(Unit unit) {
			int[] positions = unit.positions;
			if (!this.op.withValues()) {
				byte[][] args = new byte[positions.length][];
				for (int i = 0; i < positions.length; i++) {
					args[i] = this.keys[positions[i]];
				}
				return args;
			}
			byte[][] args = new byte[positions.length * 2][];
			for (int i = 0; i < positions.length; i++) {
				args[2 * i] = this.keys[positions[i]];
				args[2 * i + 1] = this.input[positions[i]];
			}
			return args;
		}

		void accept(Unit unit, @Nullable Object reply) {
			switch (this.op) {
				case MGET -> {
					if (unit.positions.length == 1 && !(reply instanceof List)) {
						this.values[unit.positions[0]] = (byte[]) reply;
						return;
					}
					List<?> replies = (List<?>) reply;
					if (replies == null || replies.size() != unit.positions.length) {
						throw new IllegalStateException("MGET of " + unit.positions.length + " keys answered " + reply);
					}
					for (int i = 0; i < unit.positions.length; i++) {
						this.values[unit.positions[i]] = (byte[]) replies.get(i);
					}
				}
				case MSET -> {
					if (!"OK".equals(reply)) {
						throw new IllegalStateException(unit.command + " answered " + reply);
					}
				}
				default -> {
					if (!(reply instanceof Long number)) {
						throw new IllegalStateException(unit.command + " answered " + reply);
					}
					this.count.addAndGet(number);
				}
			}
		}

		void release() {
			if (this.pending.decrementAndGet() == 0) {
				this.done.complete(null);
			}
		}

		boolean fail(MultiKeyException ex) {
			if (!this.done.completeExceptionally(ex)) {
				return false;
			}
			for (InFlight flight : this.inFlight) {
				CompletableFuture<List<Object>> future = flight.future;
				if (future != null) {
					future.cancel(true);
				}
			}
			return true;
		}

	}

}
