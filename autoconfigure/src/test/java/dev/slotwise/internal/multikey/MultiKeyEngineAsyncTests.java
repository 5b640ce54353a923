package dev.slotwise.internal.multikey;

import dev.slotwise.multikey.MultiKeyException;
import dev.slotwise.multikey.MultiKeyFailure;
import dev.slotwise.multikey.MultiKeyTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import dev.slotwise.internal.multikey.FakeNodeTransport.Behaviour;
import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.SlotHash;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The engine's asynchronous core (what the reactive path runs on), driven through the
 * in-memory cluster: the future completes from the transport's callbacks with the
 * blocking path's results, ends at the deadline without a thread waiting, fails with the
 * same exception types, and cancelling it cancels the node batches in flight.
 */
class MultiKeyEngineAsyncTests {

	private static final NodeAddress A = new NodeAddress("10.0.0.1", 7000);

	private static final NodeAddress B = new NodeAddress("10.0.0.2", 7000);

	private static final NodeAddress C = new NodeAddress("10.0.0.3", 7000);

	private final FakeNodeTransport cluster = new FakeNodeTransport(A, B, C);

	private final MultiKeyEngine engine = new MultiKeyEngine(this.cluster,
			new MultiKeySettings(500, 10_000, Duration.ofSeconds(5), 5));

	@RepeatedTest(5)
	void asyncResultsEqualTheBlockingPathsWithRedirects() throws Exception {
		Random random = new Random();
		byte[][] keys = new byte[300][];
		for (int i = 0; i < keys.length; i++) {
			keys[i] = key("k" + random.nextInt(200));
			if (random.nextBoolean()) {
				this.cluster.put(keys[i], key("v" + i));
			}
		}
		int moved = SlotHash.slot(keys[0]);
		this.cluster.own(moved, (this.cluster.router().apply(moved).equals(A)) ? B : A);
		this.cluster.tryAgain(SlotHash.slot(keys[1]));
		List<byte[]> blocking = this.engine.mGet(keys);
		assertThat(this.engine.mGetAsync(keys).get(5, TimeUnit.SECONDS)).containsExactlyElementsOf(blocking);
		assertThat(this.engine.countAsync(MultiKeyCommand.EXISTS, keys).get(5, TimeUnit.SECONDS))
			.isEqualTo(this.engine.count(MultiKeyCommand.EXISTS, keys));
	}

	@Test
	void mSetAsyncWritesEveryKey() throws Exception {
		byte[][] keys = keys(100);
		byte[][] values = new byte[keys.length][];
		for (int i = 0; i < keys.length; i++) {
			values[i] = key("value" + i);
		}
		this.engine.mSetAsync(keys, values).get(5, TimeUnit.SECONDS);
		List<byte[]> read = new ArrayList<>();
		for (byte[] key : keys) {
			read.add(this.cluster.get(key));
		}
		assertThat(read).containsExactly(values);
	}

	@Test
	void theDeadlineEndsTheFutureWithoutAWaitingThreadAndCancelsTheSilentNodesBatch() {
		this.cluster.behave(B, Behaviour.HANG);
		MultiKeyEngine engine = new MultiKeyEngine(this.cluster,
				new MultiKeySettings(500, 10_000, Duration.ofMillis(200), 5));
		long started = System.nanoTime();
		CompletableFuture<List<byte[]>> future = engine.mGetAsync(keys(100));
		assertThat(System.nanoTime() - started).as("returned before the deadline")
			.isLessThan(Duration.ofMillis(200).toNanos());
		// join() waits here, in the test; the engine completes the future from its timer.
		assertThatExceptionOfType(CompletionException.class).isThrownBy(future::join)
			.havingCause()
			.isInstanceOf(MultiKeyTimeoutException.class)
			.withMessageContaining("timed out after 200 ms")
			.satisfies((ex) -> assertThat(((MultiKeyFailure) ex).getNodes()).containsExactly(B.toString()));
		assertThat(this.cluster.sentTo(B)).singleElement()
			.satisfies((batch) -> assertThat(batch.future().isCancelled()).isTrue());
	}

	@Test
	void aFailingNodeCompletesTheFutureWithMultiKeyException() {
		this.cluster.behave(A, Behaviour.FAIL);
		assertThatExceptionOfType(CompletionException.class).isThrownBy(() -> this.engine.mGetAsync(keys(100)).join())
			.havingCause()
			.isInstanceOf(MultiKeyException.class)
			.withMessageContaining(A.toString());
	}

	@Test
	void cancellingTheFutureCancelsTheNodeBatchesInFlight() {
		this.cluster.behave(A, Behaviour.HANG).behave(B, Behaviour.HANG).behave(C, Behaviour.HANG);
		CompletableFuture<List<byte[]>> future = this.engine.mGetAsync(keys(100));
		assertThat(this.cluster.sent).hasSize(3);
		future.cancel(true);
		assertThat(this.cluster.sent).allSatisfy((batch) -> assertThat(batch.future().isCancelled()).isTrue());
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

}
