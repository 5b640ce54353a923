package dev.slotwise.internal.multikey;

import dev.slotwise.multikey.MultiKeyFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code slotwise.multikey.timeout} bounds a caller's wait over Jedis whatever the load:
 * with the executor squeezed to one thread and a queue of one, and one master paused far
 * longer than the timeout, no caller runs a node batch itself (where the paused node
 * would hold it until the pause or the socket timeout ends) and none waits for the pool
 * without bound. Lettuce, which needs no executor, runs the same load as the baseline.
 */
@WithRedisCluster
class MultiKeySaturationTimeoutIntegrationTests {

	private static final int CALLERS = 16;

	private static final int CALLS_PER_CALLER = 5;

	private static final long PAUSE_MILLIS = 4000;

	/**
	 * The promised bound is 400 ms; the margin absorbs a busy 2-core machine, far below
	 * the 4 s pause.
	 */
	private static final long BOUND_MILLIS = 2000;

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void everyCallerEndsWithinTheTimeoutWhileTheExecutorIsSaturatedAndAMasterStalls(String client,
			RedisTestCluster cluster) throws Exception {
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 60; i++) {
			keys.add("sat:" + i);
		}
		MultiKeyTestSupport.runner(client, cluster)
			.withPropertyValues("spring.data.redis.timeout=10s", "slotwise.multikey.timeout=400ms",
					"slotwise.multikey.jedis-executor.threads=1", "slotwise.multikey.jedis-executor.queue-capacity=1")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				assertThat(template.opsForValue().multiGet(keys)).hasSize(keys.size());
				RedisNode paused = cluster.masterServing("sat:0");
				long pausedAt = System.nanoTime();
				cluster.withAdmin(paused, (jedis) -> jedis.clientPause(PAUSE_MILLIS));
				ConcurrentLinkedQueue<Long> waits = new ConcurrentLinkedQueue<>();
				ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
				ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
				CountDownLatch finished = new CountDownLatch(CALLERS);
				for (int i = 0; i < CALLERS; i++) {
					Thread caller = new Thread(() -> {
						try {
							for (int call = 0; call < CALLS_PER_CALLER; call++) {
								long start = System.nanoTime();
								try {
									template.opsForValue().multiGet(keys);
								}
								catch (DataAccessException ex) {
									if (ex instanceof MultiKeyFailure) {
										failures.add(ex);
									}
									else {
										unexpected.add(ex);
									}
								}
								catch (RuntimeException ex) {
									unexpected.add(ex);
								}
								finally {
									waits.add(System.nanoTime() - start);
								}
							}
						}
						finally {
							finished.countDown();
						}
					}, "saturation-caller-" + i);
					caller.setDaemon(true);
					caller.start();
				}
				boolean allDone = finished.await(60, TimeUnit.SECONDS);
				long callersMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedAt);
				awaitUnpaused(cluster, paused);
				long worst = waits.stream().mapToLong(Long::longValue).max().orElse(0);
				long over = waits.stream().filter((wait) -> wait > TimeUnit.MILLISECONDS.toNanos(BOUND_MILLIS)).count();
				System.out.printf(
						"saturation (%s): %d calls, %d MultiKeyFailure, worst caller wait %d ms, %d over %d ms,"
								+ " all callers done %d ms after the pause began; first failure: %s%n",
						client, waits.size(), failures.size(), TimeUnit.NANOSECONDS.toMillis(worst), over, BOUND_MILLIS,
						callersMillis, failures.isEmpty() ? "-" : failures.peek().getMessage());
				assertThat(allDone).as("callers finished").isTrue();
				assertThat(unexpected).as("failures other than a MultiKeyFailure").isEmpty();
				assertThat(waits).hasSize(CALLERS * CALLS_PER_CALLER);
				assertThat(callersMillis).as("every call ran while the master was paused").isLessThan(PAUSE_MILLIS);
				assertThat(TimeUnit.NANOSECONDS.toMillis(worst)).as("worst caller wait (ms)").isLessThan(BOUND_MILLIS);
				assertThat(failures).as("calls that met the paused master").isNotEmpty();
				assertThat(failures).allSatisfy((ex) -> assertThat(ex.getMessage()).doesNotContain("PT-"));
			});
	}

	/** A command on a paused node is held until the pause ends: one PING waits it out. */
	private static void awaitUnpaused(RedisTestCluster cluster, RedisNode paused) {
		cluster.withAdmin(paused, Jedis::ping);
	}

}
