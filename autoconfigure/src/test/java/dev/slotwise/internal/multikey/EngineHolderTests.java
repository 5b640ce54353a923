package dev.slotwise.internal.multikey;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link EngineHolder}: one engine per state, however many callers race to build it (an
 * engine may own threads and connections, and a second one would be left running).
 */
class EngineHolderTests {

	@Test
	void racingCallersBuildOneEngine() throws Exception {
		AtomicInteger builds = new AtomicInteger();
		CountDownLatch building = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		EngineHolder<String, Object> holder = new EngineHolder<>((over) -> {
			builds.incrementAndGet();
			building.countDown();
			await(release);
			return new Object();
		});
		CompletableFuture<Object> first = CompletableFuture.supplyAsync(() -> holder.get("client"));
		assertThat(building.await(10, TimeUnit.SECONDS)).isTrue();
		Object[] second = new Object[1];
		Thread racing = new Thread(() -> second[0] = holder.get("client"));
		racing.start();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (racing.getState() != Thread.State.BLOCKED && System.nanoTime() < deadline) {
			Thread.sleep(1);
		}
		assertThat(racing.getState()).as("the second caller waits for the build under way")
			.isEqualTo(Thread.State.BLOCKED);
		release.countDown();
		racing.join(10_000);
		assertThat(builds).hasValue(1);
		assertThat(second[0]).isSameAs(first.get(10, TimeUnit.SECONDS));
	}

	@Test
	void aNewStateBuildsANewEngine() {
		EngineHolder<String, String> holder = new EngineHolder<>((over) -> "engine over " + over);
		String first = holder.get("a");
		assertThat(holder.get("a")).isSameAs(first);
		assertThat(holder.get("b")).isEqualTo("engine over b");
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
