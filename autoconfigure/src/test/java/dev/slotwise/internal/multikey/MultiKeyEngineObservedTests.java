package dev.slotwise.internal.multikey;

import dev.slotwise.internal.observed.Observed;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.slotwise.internal.multikey.FakeNodeTransport.Behaviour;
import dev.slotwise.internal.routing.NodeAddress;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The engine starts one observed operation per call and one child per node batch, ends
 * each exactly once with the call's outcome, and keeps the batch current on the sending
 * thread while the transport sends it.
 */
class MultiKeyEngineObservedTests {

	private static final NodeAddress A = new NodeAddress("10.0.0.1", 7000);

	private static final NodeAddress B = new NodeAddress("10.0.0.2", 7000);

	private static final NodeAddress C = new NodeAddress("10.0.0.3", 7000);

	private final FakeNodeTransport cluster = new FakeNodeTransport(A, B, C);

	private final List<Operation> calls = new CopyOnWriteArrayList<>();

	private final MultiKeyObserver observer = new MultiKeyObserver() {

		@Override
		public Observed start(MultiKeyCommand command, int keys) {
			Operation call = new Operation(null, null, keys);
			MultiKeyEngineObservedTests.this.calls.add(call);
			return call;
		}

	};

	@Test
	void oneCallWithOneEndedChildPerNodeBatch() {
		engine().mGet(keys(300));
		assertThat(this.calls).singleElement().satisfies((call) -> {
			assertThat(call.size).isEqualTo(300);
			assertThat(call.outcomes).containsExactly(Observed.SUCCESS);
			assertThat(call.children).extracting((batch) -> batch.node).containsExactlyInAnyOrder(A, B, C);
			assertThat(call.children)
				.allSatisfy((batch) -> assertThat(batch.outcomes).containsExactly(Observed.SUCCESS));
			assertThat(call.children.stream().mapToInt((batch) -> batch.size).sum())
				.isEqualTo(this.cluster.sent.stream().mapToInt((batch) -> batch.requests().size()).sum());
		});
	}

	@Test
	void aFailedNodeEndsItsBatchAndTheCallAsFailuresAndTheOthersOnce() {
		this.cluster.behave(B, Behaviour.FAIL);
		assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> engine().mGet(keys(300)));
		Operation call = this.calls.get(0);
		assertThat(call.outcomes).containsExactly(Observed.FAILURE);
		assertThat(call.failures).hasSize(1);
		assertThat(call.children).allSatisfy((batch) -> assertThat(batch.outcomes).hasSize(1));
		assertThat(call.children).filteredOn((batch) -> batch.node.equals(B))
			.singleElement()
			.satisfies((batch) -> assertThat(batch.outcomes).containsExactly(Observed.FAILURE));
	}

	@Test
	void asyncCallsEndTheirObservationWhenTheFutureCompletes() {
		assertThat(engine().mGetAsync(keys(50)).join()).hasSize(50);
		assertThat(this.calls).singleElement()
			.satisfies((call) -> assertThat(call.outcomes).containsExactly(Observed.SUCCESS));
	}

	@Test
	void theBatchIsCurrentWhileTheTransportSendsIt() {
		List<Boolean> sentInScope = new CopyOnWriteArrayList<>();
		NodeTransport transport = new NodeTransport() {

			@Override
			public java.util.function.IntFunction<@Nullable NodeAddress> router() {
				return MultiKeyEngineObservedTests.this.cluster.router();
			}

			@Override
			public java.util.concurrent.CompletableFuture<List<Object>> send(NodeAddress node, List<Request> requests,
					int maxPerFlush) {
				sentInScope.add(Operation.CURRENT.get() != null && Operation.CURRENT.get().node == node);
				return MultiKeyEngineObservedTests.this.cluster.send(node, requests, maxPerFlush);
			}

			@Override
			public void invalidateTopology() {
			}

			@Override
			public Runnable schedule(Runnable task, long delayNanos) {
				return MultiKeyEngineObservedTests.this.cluster.schedule(task, delayNanos);
			}

		};
		new MultiKeyEngine(transport, settings(), this.observer).mGet(keys(100));
		assertThat(sentInScope).hasSize(3).containsOnly(true);
		assertThat(Operation.CURRENT.get()).isNull();
	}

	@Test
	void theDefaultObserverObservesNothing() {
		assertThat(MultiKeyObserver.NONE.start(MultiKeyCommand.MGET, 10)).isSameAs(Observed.NONE);
		assertThat(MultiKeyObserver.of(List.of(MultiKeyObserver.NONE, this.observer))).isSameAs(this.observer);
		assertThat(MultiKeyObserver.of(List.of())).isSameAs(MultiKeyObserver.NONE);
	}

	@Test
	void aCompositeObserverStartsEveryObserversOperation() {
		MultiKeyObserver both = MultiKeyObserver.of(List.of(this.observer, this.observer));
		new MultiKeyEngine(this.cluster, settings(), both).mGet(keys(100));
		assertThat(this.calls).hasSize(2).allSatisfy((call) -> {
			assertThat(call.outcomes).containsExactly(Observed.SUCCESS);
			assertThat(call.children).hasSize(3);
		});
	}

	private MultiKeyEngine engine() {
		return new MultiKeyEngine(this.cluster, settings(), this.observer);
	}

	private static MultiKeySettings settings() {
		return new MultiKeySettings(500, 10_000, Duration.ofSeconds(5), 5);
	}

	private static byte[][] keys(int count) {
		byte[][] keys = new byte[count][];
		for (int i = 0; i < count; i++) {
			keys[i] = ("key" + i).getBytes(StandardCharsets.UTF_8);
		}
		return keys;
	}

	private static final class Operation implements Observed {

		static final ThreadLocal<@Nullable Operation> CURRENT = new ThreadLocal<>();

		final @Nullable Operation parent;

		final @Nullable NodeAddress node;

		final int size;

		final List<Operation> children = new CopyOnWriteArrayList<>();

		final List<String> outcomes = new CopyOnWriteArrayList<>();

		final List<Throwable> failures = new CopyOnWriteArrayList<>();

		Operation(@Nullable Operation parent, @Nullable NodeAddress node, int size) {
			this.parent = parent;
			this.node = node;
			this.size = size;
		}

		@Override
		public Observed batch(NodeAddress node, int commands) {
			Operation batch = new Operation(this, node, commands);
			this.children.add(batch);
			return batch;
		}

		@Override
		public Scope open() {
			Operation previous = CURRENT.get();
			CURRENT.set(this);
			return () -> CURRENT.set(previous);
		}

		@Override
		public void end(String outcome, @Nullable Throwable failure) {
			this.outcomes.add(outcome);
			if (failure != null && !(failure instanceof CancellationException)) {
				this.failures.add(failure);
			}
		}

	}

}
