package dev.slotwise.internal.multikey.jedis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A saturated executor never runs a multi-key batch on its caller: the caller waits for
 * room until the batch's deadline, then is refused naming the saturation. Other work
 * (pipeline node groups) still runs on the caller.
 */
class MultiKeyExecutorTests {

	@Test
	void closeEndsTheReleaserThreadItOwns() throws Exception {
		MultiKeyExecutor executor = MultiKeyExecutor.create(1, 1, "owned-", Duration.ofSeconds(1));
		CompletableFuture<Thread> ranOn = new CompletableFuture<>();
		executor.releaser().execute(() -> ranOn.complete(Thread.currentThread()));
		Thread releaser = ranOn.get(5, TimeUnit.SECONDS);
		assertThat(releaser.getName()).isEqualTo("owned-release");
		executor.close();
		releaser.join(5000);
		assertThat(releaser.isAlive()).isFalse();
		assertThatExceptionOfType(RejectedExecutionException.class).isThrownBy(() -> executor.releaser().execute(() -> {
		}));
	}

	@Test
	void saturatedExecutorRefusesABoundedBatchAtItsDeadlineWithoutRunningIt() throws Exception {
		try (MultiKeyExecutor executor = MultiKeyExecutor.create(1, 1, "saturation-test-", Duration.ofSeconds(1))) {
			CountDownLatch release = new CountDownLatch(1);
			saturate(executor, release);
			AtomicReference<Thread> ranOn = new AtomicReference<>();
			long start = System.nanoTime();
			long deadline = start + TimeUnit.MILLISECONDS.toNanos(200);
			assertThatExceptionOfType(RejectedExecutionException.class)
				.isThrownBy(() -> executor.executor()
					.execute(MultiKeyExecutor.bounded(() -> ranOn.set(Thread.currentThread()), deadline)))
				.withMessageContaining("saturated");
			assertThat(System.nanoTime() - start).as("waited for room until about the deadline")
				.isGreaterThan(TimeUnit.MILLISECONDS.toNanos(150));
			assertThat(ranOn).hasNullValue();
			assertThat(executor.callerRuns()).isZero();
			release.countDown();
		}
	}

	@Test
	void boundedBatchWaitsForRoomAndRunsOnTheExecutor() throws Exception {
		try (MultiKeyExecutor executor = MultiKeyExecutor.create(1, 1, "saturation-test-", Duration.ofSeconds(1))) {
			CountDownLatch release = new CountDownLatch(1);
			saturate(executor, release);
			Thread freer = new Thread(() -> {
				sleep(100);
				release.countDown();
			});
			freer.start();
			CountDownLatch ran = new CountDownLatch(1);
			AtomicReference<Thread> ranOn = new AtomicReference<>();
			executor.executor().execute(MultiKeyExecutor.bounded(() -> {
				ranOn.set(Thread.currentThread());
				ran.countDown();
			}, System.nanoTime() + TimeUnit.SECONDS.toNanos(10)));
			assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(ranOn.get()).isNotSameAs(Thread.currentThread());
			assertThat(ranOn.get().getName()).startsWith("saturation-test-");
			assertThat(executor.callerRuns()).isZero();
		}
	}

	@Test
	void unboundedWorkStillRunsOnTheCallerWhenSaturated() throws Exception {
		try (MultiKeyExecutor executor = MultiKeyExecutor.create(1, 1, "saturation-test-", Duration.ofSeconds(1))) {
			CountDownLatch release = new CountDownLatch(1);
			saturate(executor, release);
			AtomicReference<Thread> ranOn = new AtomicReference<>();
			executor.executor().execute(() -> ranOn.set(Thread.currentThread()));
			assertThat(ranOn.get()).isSameAs(Thread.currentThread());
			assertThat(executor.callerRuns()).isOne();
			release.countDown();
		}
	}

	/** Occupies the only thread and the only queue slot until released. */
	private static void saturate(MultiKeyExecutor executor, CountDownLatch release) throws InterruptedException {
		CountDownLatch started = new CountDownLatch(1);
		executor.executor().execute(() -> {
			started.countDown();
			await(release);
		});
		assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
		executor.executor().execute(() -> await(release));
		assertThat(executor.queueSize()).isOne();
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
