package dev.slotwise.internal.multikey;

import dev.slotwise.internal.routing.RedirectKind;
import dev.slotwise.multikey.MultiKeyException;
import dev.slotwise.multikey.MultiKeySystemException;
import dev.slotwise.multikey.MultiKeyTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.slotwise.internal.multikey.FakeNodeTransport.Behaviour;
import dev.slotwise.internal.multikey.FakeNodeTransport.Sent;
import dev.slotwise.internal.multikey.NodeTransport.Request;
import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.SlotHash;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The engine driven through {@link NodeTransport} with an in-memory cluster: planning,
 * chunking, redirects, timeouts, cancellation and failures, with no Redis.
 */
class MultiKeyEngineTests {

	private static final NodeAddress A = new NodeAddress("10.0.0.1", 7000);

	private static final NodeAddress B = new NodeAddress("10.0.0.2", 7000);

	private static final NodeAddress C = new NodeAddress("10.0.0.3", 7000);

	private final FakeNodeTransport cluster = new FakeNodeTransport(A, B, C);

	private final RecordingObserver observer = new RecordingObserver();

	@RepeatedTest(5)
	void mGetAnswersInTheCallersOrderWhateverOrderRepliesArriveIn() {
		Random random = new Random();
		byte[][] keys = new byte[300][];
		List<byte[]> expected = new ArrayList<>();
		for (int i = 0; i < keys.length; i++) {
			// Duplicates and missing keys on purpose.
			keys[i] = key("k" + random.nextInt(200));
			if (random.nextBoolean()) {
				this.cluster.put(keys[i], value("v" + i));
			}
		}
		for (byte[] key : keys) {
			expected.add(this.cluster.get(key));
		}
		List<byte[]> values = engine(settings()).mGet(keys);
		assertThat(values).containsExactlyElementsOf(expected);
	}

	@Test
	void sendsOneBatchPerNodeWithOneCommandPerSlot() {
		byte[][] keys = keys(500);
		engine(settings()).mGet(keys);
		Set<Integer> slots = new HashSet<>();
		for (byte[] key : keys) {
			slots.add(SlotHash.slot(key));
		}
		assertThat(this.cluster.sent).hasSize(3);
		assertThat(this.cluster.sent).extracting(Sent::node).containsExactlyInAnyOrder(A, B, C);
		assertThat(this.cluster.sent.stream().mapToInt((batch) -> batch.requests().size()).sum())
			.isEqualTo(slots.size());
	}

	@Test
	void chunksAtTheKeyLimitAndPassesTheFlushLimit() {
		byte[][] keys = new byte[7][];
		for (int i = 0; i < keys.length; i++) {
			keys[i] = key("{tag}" + i);
		}
		engine(new MultiKeySettings(3, 42, Duration.ofSeconds(5), 5)).mGet(keys);
		assertThat(this.cluster.sent).singleElement().satisfies((batch) -> {
			assertThat(batch.requests()).extracting((request) -> request.args().length).containsExactly(3, 3, 1);
			assertThat(batch.maxPerFlush()).isEqualTo(42);
		});
	}

	@Test
	void movedIsFollowedForTheMovedSlotOnlyAndMarksTheTopologyStale() {
		byte[] moving = key("moving");
		int slot = SlotHash.slot(moving);
		NodeAddress owner = ownerOf(slot);
		NodeAddress newOwner = other(owner);
		this.cluster.own(slot, newOwner);
		this.cluster.put(moving, value("here"));
		byte[][] keys = { moving, key("a"), key("b"), key("c") };
		MultiKeyEngine engine = engine(settings());
		long before = System.nanoTime();
		List<byte[]> values = engine.mGet(keys);
		long after = System.nanoTime();
		assertThat(values.get(0)).isEqualTo(value("here"));
		assertThat(this.cluster.invalidations).hasValue(1);
		// The invalidation says when the call began routing: a client that applied a
		// change since then ignores it.
		assertThat(this.cluster.routedAt).singleElement()
			.satisfies((routedAt) -> assertThat(routedAt - before).isNotNegative())
			.satisfies((routedAt) -> assertThat(after - routedAt).isNotNegative());
		assertThat(this.observer.redirects).containsExactly(RedirectKind.MOVED);
		assertThat(this.cluster.redirected).containsExactly("MOVED MGET " + slot + " moving");
		List<Sent> toNewOwner = this.cluster.sentTo(newOwner);
		assertThat(toNewOwner.get(toNewOwner.size() - 1).requests()).singleElement()
			.satisfies((request) -> assertThat(List.of(request.args())).containsExactly(moving));
		// Only the moved command was sent twice.
		assertThat(this.cluster.sent.stream().mapToInt((batch) -> batch.requests().size()).sum())
			.isEqualTo(distinctSlots(keys) + 1);
	}

	@Test
	void askIsFollowedWithAskingAndLeavesTheTopologyAlone() {
		byte[] migrating = key("migrating");
		int slot = SlotHash.slot(migrating);
		NodeAddress target = other(ownerOf(slot));
		this.cluster.migrate(slot, target);
		engine(settings()).mSet(new byte[][] { migrating, key("x") }, new byte[][] { value("1"), value("2") });
		assertThat(this.cluster.get(migrating)).isEqualTo(value("1"));
		assertThat(this.cluster.invalidations).hasValue(0);
		assertThat(this.observer.redirects).containsExactly(RedirectKind.ASK);
		assertThat(this.cluster.redirected).containsExactly("ASK MSET " + slot + " migrating");
		assertThat(this.cluster.sentTo(target)).last()
			.satisfies((batch) -> assertThat(batch.requests()).extracting(Request::asking).containsExactly(true));
	}

	@Test
	void tryAgainSplitsTheSlotIntoOneKeyCommandsOfTheSameCommand() {
		byte[][] keys = { key("{t}1"), key("{t}2"), key("{t}3"), key("other") };
		this.cluster.put(keys[1], value("two"));
		this.cluster.tryAgain(SlotHash.slot(keys[0]));
		List<byte[]> values = engine(settings()).mGet(keys);
		assertThat(values).containsExactly(null, value("two"), null, null);
		assertThat(this.observer.redirects).containsExactly(RedirectKind.TRYAGAIN);
		// Lettuce publishes no event for TRYAGAIN: neither does the engine.
		assertThat(this.cluster.redirected).isEmpty();
		List<Request> retried = this.cluster.sent.get(this.cluster.sent.size() - 1).requests();
		assertThat(retried).hasSize(3).allSatisfy((request) -> {
			assertThat(request.command()).isEqualTo(MultiKeyCommand.MGET);
			assertThat(request.args().length).isEqualTo(1);
		});
	}

	@Test
	void redirectLoopFailsNamingEveryHop() {
		byte[] key = key("looping");
		int slot = SlotHash.slot(key);
		NodeAddress owner = ownerOf(slot);
		NodeAddress other = other(owner);
		// Each node says the other one owns the slot.
		this.cluster.own(slot, other);
		FakeNodeTransport cluster = this.cluster;
		MultiKeyEngine engine = new MultiKeyEngine(new NodeTransport() {

			@Override
			public java.util.function.IntFunction<NodeAddress> router() {
				return cluster.router();
			}

			@Override
			public java.util.concurrent.CompletableFuture<List<Object>> send(NodeAddress node, List<Request> requests,
					int maxPerFlush) {
				cluster.own(slot, node.equals(owner) ? other : owner);
				return cluster.send(node, requests, maxPerFlush);
			}

			@Override
			public void invalidateTopology() {
			}

			@Override
			public Runnable schedule(Runnable task, long delayNanos) {
				return cluster.schedule(task, delayNanos);
			}

		}, new MultiKeySettings(500, 10_000, Duration.ofSeconds(5), 3), this.observer);
		// Redirects ran out: Lettuce's error reply, which Spring Data Redis translates to
		// RedisSystemException.
		assertThatExceptionOfType(MultiKeySystemException.class)
			.isThrownBy(() -> engine.mGet(new byte[][] { key, key("z") }))
			.withMessageContaining("failed after 3 redirects")
			.withMessageContaining("MGET at " + owner + ": MOVED, ")
			.withMessageContaining("MGET at " + other + ": MOVED, ")
			.satisfies((ex) -> assertThat(ex.getSlots()).containsExactly(slot));
		assertThat(this.observer.redirects).hasSize(3);
	}

	@Test
	void anErrorThatIsNoRedirectFailsAtOnceNamingTheReply() {
		this.cluster.answerError(B, "CLUSTERDOWN The cluster is down");
		assertThatExceptionOfType(MultiKeySystemException.class).isThrownBy(() -> engine(settings()).mGet(keys(100)))
			.withMessageContaining("CLUSTERDOWN The cluster is down")
			.withMessageContaining(B.toString())
			.withMessageNotContaining("redirects");
		assertThat(this.observer.redirects).isEmpty();
	}

	@Test
	void ipv6RedirectTargetsAreFollowed() {
		NodeAddress ipv6 = new NodeAddress("::1", 7001);
		byte[] key = key("six");
		int slot = SlotHash.slot(key);
		this.cluster.own(slot, ipv6).put(key, value("v6"));
		assertThat(engine(settings()).mGet(new byte[][] { key, key("four") }).get(0)).isEqualTo(value("v6"));
		assertThat(this.cluster.sentTo(ipv6)).hasSize(1);
	}

	@Test
	void timeoutWhileBatchesAreInFlightNamesTheSilentNodeAndCancelsItsBatch() {
		this.cluster.behave(B, Behaviour.HANG);
		MultiKeyEngine engine = engine(new MultiKeySettings(500, 10_000, Duration.ofMillis(200), 5));
		assertThatExceptionOfType(MultiKeyTimeoutException.class).isThrownBy(() -> engine.mGet(keys(100)))
			.withMessageContaining("timed out after 200 ms")
			.satisfies((ex) -> assertThat(ex.getNodes()).containsExactly(B.toString()));
		assertThat(this.cluster.sentTo(B)).singleElement()
			.satisfies((batch) -> assertThat(batch.future().isCancelled()).isTrue());
		assertThat(this.cluster.invalidations).hasValue(1);
		assertThat(this.observer.failures).hasValue(1);
	}

	@Test
	void aFailingNodeFailsTheCallAndCancelsTheBatchesStillInFlight() {
		// A fails only once C's batch was sent, so C's batch is in flight when the call
		// fails, whatever the load.
		this.cluster.behave(C, Behaviour.HANG).failAfterBatchTo(A, C);
		assertThatExceptionOfType(MultiKeyException.class).isThrownBy(() -> engine(settings()).mGet(keys(100)))
			.withMessageContaining(A.toString())
			.withRootCauseInstanceOf(IllegalStateException.class)
			.satisfies((ex) -> assertThat(ex.getNodes()).containsExactly(A.toString()));
		assertThat(this.cluster.sentTo(C)).hasSize(1)
			.allSatisfy((batch) -> assertThat(batch.future().isCancelled()).isTrue());
	}

	@Test
	void noMasterForASlotFailsNamingTheSlot() {
		byte[] orphan = key("orphan");
		int slot = SlotHash.slot(orphan);
		this.cluster.route(slot, null);
		assertThatExceptionOfType(MultiKeyException.class)
			.isThrownBy(() -> engine(settings()).mGet(new byte[][] { orphan, key("x") }))
			.withMessageContaining("no master serves the slot")
			.satisfies((ex) -> assertThat(ex.getSlots()).containsExactly(slot));
		assertThat(this.cluster.invalidations).hasValue(1);
	}

	@Test
	void countsSumWhatEachSlotRemoved() {
		byte[][] keys = keys(50);
		for (int i = 0; i < 20; i++) {
			this.cluster.put(keys[i], value("v"));
		}
		MultiKeyEngine engine = engine(settings());
		assertThat(engine.count(MultiKeyCommand.EXISTS, keys)).isEqualTo(20);
		assertThat(engine.count(MultiKeyCommand.DEL, keys)).isEqualTo(20);
		assertThat(engine.count(MultiKeyCommand.UNLINK, keys)).isZero();
		assertThat(this.observer.calls).containsExactly(MultiKeyCommand.EXISTS, MultiKeyCommand.DEL,
				MultiKeyCommand.UNLINK);
	}

	@Test
	void countingRefusesACommandThatAnswersNoInteger() {
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> engine(settings()).count(MultiKeyCommand.MGET, keys(2)))
			.withMessageContaining("'command'");
	}

	private MultiKeyEngine engine(MultiKeySettings settings) {
		return new MultiKeyEngine(this.cluster, settings, this.observer);
	}

	private static MultiKeySettings settings() {
		return new MultiKeySettings(500, 10_000, Duration.ofSeconds(5), 5);
	}

	private NodeAddress ownerOf(int slot) {
		return this.cluster.router().apply(slot);
	}

	private static NodeAddress other(NodeAddress node) {
		return node.equals(A) ? B : A;
	}

	private static int distinctSlots(byte[][] keys) {
		Set<Integer> slots = new HashSet<>();
		for (byte[] key : keys) {
			slots.add(SlotHash.slot(key));
		}
		return slots.size();
	}

	private static byte[][] keys(int count) {
		byte[][] keys = new byte[count][];
		for (int i = 0; i < count; i++) {
			keys[i] = key("key:" + i);
		}
		return keys;
	}

	private static byte[] key(String key) {
		return key.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] value(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static final class RecordingObserver implements MultiKeyObserver {

		final List<RedirectKind> redirects = new CopyOnWriteArrayList<>();

		final List<MultiKeyCommand> calls = new CopyOnWriteArrayList<>();

		final java.util.concurrent.atomic.AtomicInteger failures = new java.util.concurrent.atomic.AtomicInteger();

		@Override
		public void called(MultiKeyCommand command, int keys, boolean success, long durationNanos) {
			this.calls.add(command);
			if (!success) {
				this.failures.incrementAndGet();
			}
		}

		@Override
		public void redirected(RedirectKind kind) {
			this.redirects.add(kind);
		}

	}

}
