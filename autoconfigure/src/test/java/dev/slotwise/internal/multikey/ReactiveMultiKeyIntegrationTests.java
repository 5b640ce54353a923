package dev.slotwise.internal.multikey;

import dev.slotwise.multikey.MultiKeyTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import dev.slotwise.internal.metrics.MultiKeyMeters;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.ReactiveRedisClusterConnection;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Reactive cross-slot multi-key calls over Lettuce run on the engine: the same results as
 * the imperative path on the same data (random, duplicate, missing, binary and
 * hash-tagged keys, empty lists), the same exception types as {@code onError}, right
 * values during a slot migration under reactive load, and results emitted from Lettuce's
 * I/O threads to subscribers on Reactor's non-blocking threads (where any blocking call
 * would throw).
 */
// Its own cluster: the migration test moves a slot, which tests of the shared cluster
// must not see.
@WithRedisCluster(dedicated = true)
class ReactiveMultiKeyIntegrationTests {

	private static final int KEYSPACE = 3000;

	private static final Duration WAIT = Duration.ofSeconds(20);

	@Test
	void reactiveResultsEqualTheImperativePathsAndRunOnTheEngine(RedisTestCluster cluster) {
		cluster.reset();
		run(cluster, (context, imperative, reactive) -> {
			Random random = new Random(42);
			byte[][] keyspace = MultiKeyTestSupport.keyspace(random, KEYSPACE);
			MultiKeyTestSupport.populate(imperative, random, keyspace);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			long crossSlot = 0;
			for (int i = 0; i < 40; i++) {
				byte[][] keys = MultiKeyTestSupport.pick(random, keyspace,
						(i % 2 == 0) ? random.nextInt(10) + 1 : random.nextInt(2000) + 1);
				crossSlot += isCrossSlot(keys) ? 1 : 0;
				List<byte[]> expected = imperative.stringCommands().mGet(keys);
				List<ByteBuffer> values = onParallel(() -> reactive.stringCommands().mGet(buffers(keys)));
				assertThat(values).as("iteration %d, %d keys", i, keys.length).hasSize(expected.size());
				for (int k = 0; k < keys.length; k++) {
					assertThat(bytes(values.get(k))).as("iteration %d, key %d", i, k).isEqualTo(expected.get(k));
				}
				assertThat((Long) onParallel(() -> reactive.keyCommands().exists(buffers(keys))))
					.isEqualTo(imperative.keyCommands().exists(keys));
			}
			// Each cross-slot reactive mGet and exists was a call of the engine.
			assertThat(registry.find(MultiKeyMeters.CALLS)
				.tag("command", "mget")
				.timers()
				.stream()
				.mapToLong((timer) -> timer.count())
				.sum()).isEqualTo(2 * crossSlot);
			assertThat(crossSlot).isPositive();
		});
	}

	@Test
	void reactiveWritesAndRemovalsEqualTheImperativePaths(RedisTestCluster cluster) {
		cluster.reset();
		run(cluster, (context, imperative, reactive) -> {
			Random random = new Random(7);
			byte[][] keyspace = MultiKeyTestSupport.keyspace(random, KEYSPACE);
			for (int i = 0; i < 20; i++) {
				Map<ByteBuffer, ByteBuffer> tuples = new LinkedHashMap<>();
				for (byte[] key : MultiKeyTestSupport.pick(random, keyspace, random.nextInt(500) + 2)) {
					tuples.put(ByteBuffer.wrap(key), ByteBuffer.wrap(MultiKeyTestSupport.value(random)));
				}
				assertThat((Boolean) onParallel(() -> reactive.stringCommands().mSet(tuples))).isTrue();
				byte[][] keys = tuples.keySet()
					.stream()
					.map(ReactiveMultiKeyIntegrationTests::bytes)
					.toArray(byte[][]::new);
				List<byte[]> read = MultiKeyTestSupport.getEach(imperative, keys);
				List<byte[]> written = tuples.values().stream().map(ReactiveMultiKeyIntegrationTests::bytes).toList();
				assertThat(read).containsExactlyElementsOf(written);
				// Removing with duplicates counts each key removed once, as DEL does.
				byte[][] removal = Arrays.copyOf(keys, keys.length + 5);
				for (int d = keys.length; d < removal.length; d++) {
					removal[d] = keys[random.nextInt(keys.length)];
				}
				List<ByteBuffer> removed = buffers(removal);
				long count = (i % 2 == 0) ? onParallel(() -> reactive.keyCommands().mDel(removed))
						: onParallel(() -> reactive.keyCommands().mUnlink(removed));
				assertThat(count).as("iteration %d", i).isEqualTo(keys.length);
				assertThat(MultiKeyTestSupport.getEach(imperative, keys)).allMatch((value) -> value == null);
			}
		});
	}

	@Test
	void emptyListsBehaveAsSpringDataRedisAlone(RedisTestCluster cluster) {
		ApplicationContextRunner off = runner(cluster).withPropertyValues("slotwise.multikey.enabled=false");
		String[] withEngine = outcomesOfEmptyCalls(runner(cluster));
		String[] without = outcomesOfEmptyCalls(off);
		assertThat(withEngine).containsExactly(without);
	}

	@Test
	void templateCallsRouteThroughTheEngine(RedisTestCluster cluster) {
		cluster.reset();
		runner(cluster).run((context) -> {
			assertThat(context).hasNotFailed();
			ReactiveStringRedisTemplate template = new ReactiveStringRedisTemplate(
					context.getBean(ReactiveRedisConnectionFactory.class));
			Map<String, String> tuples = new LinkedHashMap<>();
			for (int i = 0; i < 1000; i++) {
				tuples.put("t:" + i, "v" + i);
			}
			List<String> keys = new ArrayList<>(tuples.keySet());
			keys.add("t:missing");
			assertThat(template.opsForValue().multiSet(tuples).block(WAIT)).isTrue();
			List<String> values = template.opsForValue().multiGet(keys).block(WAIT);
			List<String> expected = new ArrayList<>(tuples.values());
			expected.add(null);
			assertThat(values).isEqualTo(expected);
			assertThat(template.countExistingKeys(keys).block(WAIT)).isEqualTo(1000);
			assertThat(template.unlink(Flux.fromIterable(keys.subList(0, 500))).block(WAIT)).isEqualTo(500);
			assertThat(template.delete(keys.toArray(new String[0])).block(WAIT)).isEqualTo(500);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			for (String command : List.of("mset", "mget", "exists", "del")) {
				assertThat(
						registry.find(MultiKeyMeters.CALLS).tag("command", command).tag("outcome", "success").timers())
					.as(command)
					.singleElement()
					.satisfies((timer) -> assertThat(timer.count()).isPositive());
			}
		});
	}

	@Test
	void subscribingReturnsAtOnceAndValuesArriveFromLettucesIoThreadsWhileANodeIsPaused(RedisTestCluster cluster) {
		cluster.reset();
		run(cluster, (context, imperative, reactive) -> {
			byte[][] keys = MultiKeyCommandsIntegrationTests.keys("paused:", 300);
			Map<ByteBuffer, ByteBuffer> tuples = new LinkedHashMap<>();
			for (byte[] key : keys) {
				tuples.put(ByteBuffer.wrap(key), ByteBuffer.wrap(key));
			}
			List<ByteBuffer> request = buffers(keys);
			List<Supplier<Mono<?>>> calls = List.of(() -> reactive.stringCommands().mSet(tuples),
					() -> reactive.stringCommands().mGet(request), () -> reactive.keyCommands().exists(request),
					() -> reactive.keyCommands().mUnlink(request), () -> reactive.keyCommands().mDel(request));
			List<Object> results = new ArrayList<>();
			for (Supplier<Mono<?>> call : calls) {
				cluster.withAdmin(cluster.masters().get(0), (jedis) -> jedis.clientPause(600));
				long[] subscribeNanos = new long[1];
				String[] emittedOn = new String[1];
				Object[] value = new Object[1];
				java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
				Schedulers.parallel().schedule(() -> {
					long started = System.nanoTime();
					call.get().subscribe((result) -> {
						emittedOn[0] = Thread.currentThread().getName();
						value[0] = result;
					}, (ex) -> done.countDown(), done::countDown);
					subscribeNanos[0] = System.nanoTime() - started;
				});
				assertThat(done.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
				// Had the call waited for a reply on the subscribing thread, subscribing
				// would have taken the pause.
				assertThat(Duration.ofNanos(subscribeNanos[0])).isLessThan(Duration.ofMillis(300));
				assertThat(emittedOn[0]).startsWith("lettuce-");
				results.add(value[0]);
			}
			assertThat(results.get(0)).isEqualTo(true);
			assertThat(results.get(1)).isEqualTo(request);
			assertThat(results.subList(2, 5)).containsExactly(300L, 300L, 0L);
		});
	}

	@Test
	void aStalledNodeFailsTheCallAsOnErrorWithTheImperativePathsExceptionType(RedisTestCluster cluster) {
		cluster.reset();
		ApplicationContextRunner runner = runner(cluster).withPropertyValues("slotwise.multikey.timeout=300ms");
		runner.run((context) -> {
			assertThat(context).hasNotFailed();
			ReactiveRedisClusterConnection reactive = context.getBean(ReactiveRedisConnectionFactory.class)
				.getReactiveClusterConnection();
			try (RedisClusterConnection imperative = context.getBean(RedisConnectionFactory.class)
				.getClusterConnection()) {
				byte[][] keys = MultiKeyCommandsIntegrationTests.keys("stall:", 200);
				imperative.stringCommands().mGet(keys);
				RedisNode paused = cluster.masters().get(0);
				cluster.withAdmin(paused, (jedis) -> jedis.clientPause(1500));
				long started = System.nanoTime();
				List<Throwable> errors = new ArrayList<>();
				Throwable imperativeError = null;
				try {
					imperative.stringCommands().mGet(keys);
				}
				catch (RuntimeException ex) {
					imperativeError = ex;
				}
				Mono<List<ByteBuffer>> call = reactive.stringCommands()
					.mGet(buffers(keys))
					.subscribeOn(Schedulers.parallel());
				call.doOnError(errors::add).onErrorResume((ex) -> Mono.empty()).block(WAIT);
				assertThat(imperativeError).isInstanceOf(MultiKeyTimeoutException.class);
				assertThat(errors).singleElement()
					.isInstanceOf(MultiKeyTimeoutException.class)
					.satisfies((ex) -> assertThat(ex.getMessage()).contains("timed out after 300 ms"));
				assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(1400));
			}
			finally {
				reactive.close();
			}
		});
	}

	@Test
	void mGetDuringSlotMigrationUnderReactiveLoadReturnsRightValues(RedisTestCluster cluster) throws Exception {
		cluster.reset();
		String tag = "{reactive-migrating}";
		byte[][] migrating = MultiKeyCommandsIntegrationTests.keys(tag + ":", 300);
		byte[][] others = MultiKeyCommandsIntegrationTests.keys("reactive-other:", 300);
		byte[][] keys = new byte[migrating.length + others.length][];
		for (int i = 0; i < migrating.length; i++) {
			keys[2 * i] = migrating[i];
			keys[2 * i + 1] = others[i];
		}
		Map<byte[], byte[]> tuples = new LinkedHashMap<>();
		for (byte[] key : keys) {
			tuples.put(key, ("value-of-" + new String(key)).getBytes());
		}
		List<byte[]> expected = new ArrayList<>(tuples.values());
		SlotMigration migration = SlotMigration.of(cluster, tag);
		run(cluster, (context, imperative, reactive) -> {
			imperative.stringCommands().mSet(tuples);
			cluster.resetStats();
			AtomicBoolean stop = new AtomicBoolean();
			AtomicLong calls = new AtomicLong();
			ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
			List<ByteBuffer> request = buffers(keys);
			// 8 concurrent reactive callers, resubscribing until told to stop, on
			// Reactor's non-blocking threads.
			var load = Flux.range(0, 8)
				.flatMap((caller) -> Mono.defer(() -> reactive.stringCommands().mGet(request)).doOnNext((values) -> {
					for (int i = 0; i < keys.length; i++) {
						if (!Arrays.equals(bytes(values.get(i)), expected.get(i))) {
							failures.add(new AssertionError("Wrong value for key #" + i));
							return;
						}
					}
					calls.incrementAndGet();
				})
					.doOnError(failures::add)
					.onErrorResume((ex) -> Mono.empty())
					.repeat(() -> !stop.get())
					.subscribeOn(Schedulers.parallel()), 8)
				.then()
				.toFuture();
			Thread.sleep(100);
			migration.begin();
			Thread.sleep(100);
			migration.moveAllKeys(20);
			migration.finish();
			Thread.sleep(300);
			stop.set(true);
			load.get(30, java.util.concurrent.TimeUnit.SECONDS);
			assertThat(failures).isEmpty();
			assertThat(calls.get()).isGreaterThan(8);
			assertThat(cluster.totalCommandCalls("asking")).as("the callers met the migration").isPositive();
		});
	}

	private static String[] outcomesOfEmptyCalls(ApplicationContextRunner runner) {
		String[] outcomes = new String[3];
		runner.run((context) -> {
			assertThat(context).hasNotFailed();
			ReactiveRedisClusterConnection reactive = context.getBean(ReactiveRedisConnectionFactory.class)
				.getReactiveClusterConnection();
			try {
				outcomes[0] = outcome(() -> reactive.stringCommands().mGet(List.of()));
				outcomes[1] = outcome(() -> reactive.keyCommands().exists(List.of()));
				outcomes[2] = outcome(() -> reactive.keyCommands().mDel(Mono.just(List.of())).next());
			}
			finally {
				reactive.close();
			}
		});
		return outcomes;
	}

	private static String outcome(Supplier<Mono<?>> call) {
		try {
			return String.valueOf(call.get().block(WAIT));
		}
		catch (RuntimeException ex) {
			return ex.getClass().getName();
		}
	}

	/**
	 * Subscribes on a Reactor non-blocking thread, where {@code block()} and Reactor's
	 * other blocking calls throw.
	 */
	private static <T> T onParallel(Supplier<Mono<T>> call) {
		return Mono.defer(call).subscribeOn(Schedulers.parallel()).block(WAIT);
	}

	private static boolean isCrossSlot(byte[][] keys) {
		return Arrays.stream(keys).mapToInt(dev.slotwise.internal.routing.SlotHash::slot).distinct().count() > 1;
	}

	private static List<ByteBuffer> buffers(byte[][] keys) {
		List<ByteBuffer> buffers = new ArrayList<>(keys.length);
		for (byte[] key : keys) {
			buffers.add(ByteBuffer.wrap(key));
		}
		return buffers;
	}

	private static byte @Nullable [] bytes(@Nullable ByteBuffer buffer) {
		if (buffer == null) {
			return null;
		}
		ByteBuffer view = buffer.duplicate();
		byte[] bytes = new byte[view.remaining()];
		view.get(bytes);
		return bytes;
	}

	private static ApplicationContextRunner runner(RedisTestCluster cluster) {
		return MultiKeyTestSupport.runner("lettuce", cluster)
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new);
	}

	private void run(RedisTestCluster cluster, ReactiveTest test) {
		runner(cluster).run((context) -> {
			assertThat(context).hasNotFailed();
			ReactiveRedisClusterConnection reactive = context.getBean(ReactiveRedisConnectionFactory.class)
				.getReactiveClusterConnection();
			try (RedisClusterConnection imperative = context.getBean(RedisConnectionFactory.class)
				.getClusterConnection()) {
				test.run(context, imperative, reactive);
			}
			finally {
				reactive.close();
			}
		});
	}

	@FunctionalInterface
	private interface ReactiveTest {

		void run(AssertableApplicationContext context, RedisClusterConnection imperative,
				ReactiveRedisClusterConnection reactive) throws Exception;

	}

}
