package dev.slotwise.internal.multikey;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Closing the application context while 8 threads call cross-slot {@code multiGet} over
 * Jedis (4 through the template, 4 on a connection they hold across the close), three
 * times: after {@code close()} no call succeeds, every caller ends within the timeout
 * with a clear exception, and the application's connections on every node (replicas
 * included) are back to none within seconds and stay so, even with a fast evictor and
 * {@code min-idle} that would refill any pool re-created on the closed client.
 */
@WithRedisCluster
class JedisCloseUnderLoadIntegrationTests {

	private static final int CALLERS = 8;

	@Test
	void closingTheContextUnderLoadEndsEveryCallAndLeavesNoConnection(RedisTestCluster cluster) throws Exception {
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			keys.add("close:" + i);
		}
		assertThat(MultiKeyTestSupport.applicationConnections(cluster)).as("baseline").isZero();
		for (int round = 1; round <= 3; round++) {
			closeUnderLoad(cluster, keys, round);
		}
	}

	private void closeUnderLoad(RedisTestCluster cluster, List<String> keys, int round) throws Exception {
		AtomicLong closedAt = new AtomicLong(Long.MAX_VALUE);
		AtomicLong closeReturnedAt = new AtomicLong(Long.MAX_VALUE);
		ConcurrentLinkedQueue<String> successesAfterClose = new ConcurrentLinkedQueue<>();
		ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
		AtomicLong calls = new AtomicLong();
		CountDownLatch finished = new CountDownLatch(CALLERS);
		MultiKeyTestSupport.runner("jedis", cluster)
			.withPropertyValues("slotwise.multikey.timeout=1s", "spring.data.redis.jedis.pool.min-idle=2",
					"spring.data.redis.jedis.pool.time-between-eviction-runs=100ms",
					// A topology that goes stale at once, so that calls in flight at
					// close() also look it up again.
					"slotwise.topology.cache-ttl=1ms", "slotwise.topology.min-refresh-interval=1ms")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				byte[][] rawKeys = keys.stream().map(String::getBytes).toArray(byte[][]::new);
				for (int i = 0; i < CALLERS; i++) {
					// Half the callers take a connection per call (as templates do); the
					// other half hold one connection across the close (a long callback),
					// so their calls reach the engine after close().
					boolean holding = i % 2 == 1;
					Runnable loop = () -> callUntilClosed(() -> template.opsForValue().multiGet(keys), closedAt,
							closeReturnedAt, calls, successesAfterClose, failures);
					Thread caller = new Thread(() -> {
						try {
							if (holding) {
								template.execute((RedisCallback<Void>) (connection) -> {
									callUntilClosed(() -> connection.stringCommands().mGet(rawKeys), closedAt,
											closeReturnedAt, calls, successesAfterClose, failures);
									return null;
								});
							}
							else {
								loop.run();
							}
						}
						catch (RuntimeException ex) {
							// Releasing the held connection after close() may fail too;
							// the call's own failure counts.
						}
						finally {
							finished.countDown();
						}
					}, "close-caller-" + round + "-" + i);
					caller.setDaemon(true);
					caller.start();
				}
				assertThat(MultiKeyTestSupport.eventually(() -> calls.get() >= 200)).as("calls before close").isTrue();
				closedAt.set(System.nanoTime());
				context.close();
				closeReturnedAt.set(System.nanoTime());
			});
		boolean allEnded = finished.await(5, TimeUnit.SECONDS);
		long callersEndedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAt.get());
		long closeMillis = TimeUnit.NANOSECONDS.toMillis(closeReturnedAt.get() - closedAt.get());
		boolean released = MultiKeyTestSupport
			.eventually(() -> MultiKeyTestSupport.applicationConnections(cluster) == 0);
		long releasedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAt.get());
		// A pool re-created on the closed client would be refilled to min-idle by its
		// evictor (every 100 ms).
		long leaked = 0;
		long watchUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
		while (System.nanoTime() < watchUntil) {
			leaked = Math.max(leaked, MultiKeyTestSupport.applicationConnections(cluster));
			Thread.sleep(100);
		}
		System.out.printf("close under load, round %d: %d calls before close, close() took %d ms, callers ended"
				+ " within %d ms (all: %s), connections back to none after %d ms (%s), %d successes after close,"
				+ " failures: %s%n", round, calls.get(), closeMillis, callersEndedMillis, allEnded, releasedMillis,
				released, successesAfterClose.size(),
				failures.stream().map(JedisCloseUnderLoadIntegrationTests::describe).distinct().toList());
		assertThat(allEnded).as("callers ended within 5 s of close()").isTrue();
		assertThat(successesAfterClose).as("calls begun after close() returned that succeeded").isEmpty();
		// "ClusterCommandExecutor not initialized" is Spring Data's own, for a connection
		// asked for while the factory is stopping, after its executor was destroyed and
		// before its state says so (seen once, plain Spring Data's race, not the
		// engine's).
		assertThat(failures).hasSize(CALLERS)
			.allSatisfy((failure) -> assertThat(failure.getMessage()).as("a clear exception")
				.containsAnyOf("STOPPING", "STOPPED", "DESTROYED", "destroyed", "closed", "shut down",
						"ClusterCommandExecutor not initialized"));
		assertThat(released).as("application connections back to none within 5 s: %s", connections(cluster)).isTrue();
		assertThat(leaked).as("application connections re-opened after close").isZero();
	}

	private static void callUntilClosed(Runnable call, AtomicLong closedAt, AtomicLong closeReturnedAt,
			AtomicLong calls, ConcurrentLinkedQueue<String> successesAfterClose,
			ConcurrentLinkedQueue<Throwable> failures) {
		while (true) {
			long start = System.nanoTime();
			try {
				call.run();
				calls.incrementAndGet();
				// A call in flight during close() may still succeed; one begun after it
				// may not.
				if (start - closeReturnedAt.get() > 0) {
					successesAfterClose.add(Thread.currentThread().getName());
				}
			}
			catch (RuntimeException ex) {
				if (System.nanoTime() - closedAt.get() >= 0) {
					failures.add(ex);
					return;
				}
				throw ex;
			}
		}
	}

	private static String describe(Throwable failure) {
		return failure.getClass().getSimpleName() + ": " + failure.getMessage();
	}

	private static String connections(RedisTestCluster cluster) {
		StringBuilder all = new StringBuilder();
		for (RedisNode node : cluster.nodes()) {
			all.append(node.port())
				.append('=')
				.append(cluster.countClients(node, MultiKeyTestSupport.CLIENT_NAME))
				.append(' ');
		}
		return all.toString();
	}

}
