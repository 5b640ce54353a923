package dev.slotwise.internal.multikey;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.RedirectKind;
import dev.slotwise.internal.routing.SlotHash;
import org.jspecify.annotations.Nullable;

/**
 * An in-memory cluster behind the {@link NodeTransport} seam, for driving the engine
 * without Redis: one shared key space, a client-side view of slot owners ({@link #route})
 * that may lag the servers' ({@link #own}), slots being migrated ({@link #migrate}: the
 * source answers {@code ASK}, the target {@code MOVED} unless asked), slots that refuse
 * multi-key commands ({@link #tryAgain}), and nodes that fail, hang or answer with a
 * fixed error. Replies complete on other threads after a random delay, so they arrive in
 * any order.
 */
final class FakeNodeTransport implements NodeTransport {

	private static final Executor DELAYED = (task) -> CompletableFuture
		.delayedExecutor(ThreadLocalRandom.current().nextInt(0, 3), TimeUnit.MILLISECONDS)
		.execute(task);

	final Map<ByteBuffer, byte[]> data = new ConcurrentHashMap<>();

	private final Map<Integer, NodeAddress> clientView = new ConcurrentHashMap<>();

	private final Map<Integer, NodeAddress> serverView = new ConcurrentHashMap<>();

	private final Map<Integer, NodeAddress> migrating = new ConcurrentHashMap<>();

	private final Set<Integer> tryAgain = ConcurrentHashMap.newKeySet();

	private final Map<NodeAddress, Behaviour> behaviours = new ConcurrentHashMap<>();

	private final Map<NodeAddress, String> errors = new ConcurrentHashMap<>();

	/** For a failing node, the node whose first batch its failure waits for. */
	private final Map<NodeAddress, NodeAddress> failAfter = new ConcurrentHashMap<>();

	/** Completes when a node is sent its first batch. */
	private final Map<NodeAddress, CompletableFuture<Void>> firstBatch = new ConcurrentHashMap<>();

	/** Every batch sent, in order of sending. */
	final List<Sent> sent = new CopyOnWriteArrayList<>();

	final AtomicInteger invalidations = new AtomicInteger();

	/** The routing time each invalidation carried. */
	final List<Long> routedAt = new CopyOnWriteArrayList<>();

	/** The redirects told to the client library, as {@code kind command slot key}. */
	final List<String> redirected = new CopyOnWriteArrayList<>();

	/**
	 * Spreads all slots over the nodes in equal ranges, in both the client's and the
	 * servers' view.
	 */
	FakeNodeTransport(NodeAddress... nodes) {
		int range = (SlotHash.SLOT_COUNT + nodes.length - 1) / nodes.length;
		for (int slot = 0; slot < SlotHash.SLOT_COUNT; slot++) {
			NodeAddress node = nodes[slot / range];
			this.clientView.put(slot, node);
			this.serverView.put(slot, node);
		}
	}

	/** Makes the client believe a slot lives on a node, or on none. */
	FakeNodeTransport route(int slot, @Nullable NodeAddress node) {
		if (node != null) {
			this.clientView.put(slot, node);
		}
		else {
			this.clientView.remove(slot);
		}
		return this;
	}

	/** Makes the servers agree that a slot lives on a node. */
	FakeNodeTransport own(int slot, NodeAddress node) {
		this.serverView.put(slot, node);
		return this;
	}

	/**
	 * Starts migrating a slot from its owner to a target: the owner answers ASK for it.
	 */
	FakeNodeTransport migrate(int slot, NodeAddress target) {
		this.migrating.put(slot, target);
		return this;
	}

	/** Makes a slot refuse commands with more than one key with TRYAGAIN. */
	FakeNodeTransport tryAgain(int slot) {
		this.tryAgain.add(slot);
		return this;
	}

	/** Makes a node fail, hang or answer every command with an error. */
	FakeNodeTransport behave(NodeAddress node, Behaviour behaviour) {
		this.behaviours.put(node, behaviour);
		return this;
	}

	/**
	 * Makes a node fail, but only once another node has been sent a batch: the other
	 * node's batch is then surely in flight when the failure comes.
	 */
	FakeNodeTransport failAfterBatchTo(NodeAddress failing, NodeAddress other) {
		this.failAfter.put(failing, other);
		return behave(failing, Behaviour.FAIL);
	}

	/** Makes a node answer every command with this error reply. */
	FakeNodeTransport answerError(NodeAddress node, String error) {
		this.errors.put(node, error);
		return this;
	}

	void put(byte[] key, byte[] value) {
		this.data.put(ByteBuffer.wrap(key), value);
	}

	byte @Nullable [] get(byte[] key) {
		return this.data.get(ByteBuffer.wrap(key));
	}

	@Override
	public IntFunction<@Nullable NodeAddress> router() {
		Map<Integer, NodeAddress> snapshot = new HashMap<>(this.clientView);
		return snapshot::get;
	}

	@Override
	public CompletableFuture<List<Object>> send(NodeAddress node, List<Request> requests, int maxPerFlush) {
		Sent batch = new Sent(node, List.copyOf(requests), maxPerFlush, new CompletableFuture<>());
		this.sent.add(batch);
		firstBatch(node).complete(null);
		Behaviour behaviour = this.behaviours.getOrDefault(node, Behaviour.ANSWER);
		switch (behaviour) {
			case FAIL -> {
				NodeAddress other = this.failAfter.get(node);
				CompletableFuture<Void> gate = (other != null) ? firstBatch(other)
						: CompletableFuture.completedFuture(null);
				gate.thenRun(() -> DELAYED.execute(() -> batch.future()
					.completeExceptionally(new IllegalStateException("Connection refused: " + node))));
			}
			case HANG -> {
				// Never completes; only the engine's cancellation ends it.
			}
			case ANSWER -> DELAYED.execute(() -> batch.future().complete(answer(node, requests)));
		}
		return batch.future();
	}

	private CompletableFuture<Void> firstBatch(NodeAddress node) {
		return this.firstBatch.computeIfAbsent(node, (key) -> new CompletableFuture<>());
	}

	private List<Object> answer(NodeAddress node, List<Request> requests) {
		List<Object> replies = new ArrayList<>(requests.size());
		for (Request request : requests) {
			replies.add(answer(node, request));
		}
		return replies;
	}

	private Object answer(NodeAddress node, Request request) {
		String error = this.errors.get(node);
		if (error != null) {
			return new ErrorReply(error);
		}
		int keys = request.command().withValues() ? request.args().length / 2 : request.args().length;
		Set<Integer> slots = new HashSet<>();
		for (int i = 0; i < keys; i++) {
			slots.add(SlotHash.slot(key(request, i)));
		}
		if (slots.size() != 1) {
			return new ErrorReply("CROSSSLOT Keys in request don't hash to the same slot");
		}
		int slot = slots.iterator().next();
		NodeAddress owner = this.serverView.get(slot);
		NodeAddress target = this.migrating.get(slot);
		if (target != null && node.equals(target) && request.asking()) {
			return execute(request, keys);
		}
		if (!node.equals(owner)) {
			return new ErrorReply("MOVED " + slot + " " + owner);
		}
		if (target != null) {
			return new ErrorReply("ASK " + slot + " " + target);
		}
		if (keys > 1 && this.tryAgain.contains(slot)) {
			return new ErrorReply("TRYAGAIN Multiple keys request during rehashing of slot");
		}
		return execute(request, keys);
	}

	private Object execute(Request request, int keys) {
		switch (request.command()) {
			case MGET -> {
				List<byte @Nullable []> values = new ArrayList<>(keys);
				for (int i = 0; i < keys; i++) {
					values.add(get(key(request, i)));
				}
				return values;
			}
			case MSET -> {
				for (int i = 0; i < keys; i++) {
					put(key(request, i), request.args()[2 * i + 1]);
				}
				return "OK";
			}
			case EXISTS -> {
				long count = 0;
				for (int i = 0; i < keys; i++) {
					count += (get(key(request, i)) != null) ? 1 : 0;
				}
				return count;
			}
			default -> {
				long count = 0;
				for (int i = 0; i < keys; i++) {
					count += (this.data.remove(ByteBuffer.wrap(key(request, i))) != null) ? 1 : 0;
				}
				return count;
			}
		}
	}

	private static byte[] key(Request request, int index) {
		return request.command().withValues() ? request.args()[2 * index] : request.args()[index];
	}

	@Override
	public void redirected(RedirectKind kind, MultiKeyCommand command, byte[] firstKey, int slot, String message) {
		this.redirected.add(kind + " " + command + " " + slot + " " + new String(firstKey, StandardCharsets.UTF_8));
	}

	@Override
	public void invalidateTopology() {
		this.invalidations.incrementAndGet();
	}

	@Override
	public void invalidateTopology(long routedAt) {
		this.routedAt.add(routedAt);
		invalidateTopology();
	}

	@Override
	public Runnable schedule(Runnable task, long delayNanos) {
		AtomicBoolean cancelled = new AtomicBoolean();
		CompletableFuture.delayedExecutor(Math.max(0, delayNanos), TimeUnit.NANOSECONDS).execute(() -> {
			if (!cancelled.get()) {
				task.run();
			}
		});
		return () -> cancelled.set(true);
	}

	List<Sent> sentTo(NodeAddress node) {
		return this.sent.stream().filter((batch) -> batch.node().equals(node)).toList();
	}

	enum Behaviour {

		ANSWER, FAIL, HANG

	}

	record Sent(NodeAddress node, List<Request> requests, int maxPerFlush, CompletableFuture<List<Object>> future) {
	}

}
