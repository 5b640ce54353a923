package dev.slotwise.internal.multikey;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.internal.metrics.MultiKeyMeters;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import redis.clients.jedis.Jedis;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.ReactiveRedisClusterConnection;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cancelling the subscription of a reactive cross-slot call cancels its node batches, as
 * the servers see it: with pre-warm off, one master is paused ({@code CLIENT PAUSE},
 * which holds the handshake of a new connection without the cluster failing the node)
 * while the call opens its connection to that master; the subscription is disposed once
 * the other masters answered, the pause ends, and that master's connection completes with
 * nothing written on it. The first three tests were checked to fail with
 * {@code Mono.fromFuture(..., true)} (cancellation suppressed) in
 * {@link LettuceReactiveMultiKey}: the paused master then executed the call's batch (some
 * 100 {@code MGET}s or {@code MSET}s) after the pause, and the call was counted as a
 * success. The last one cancels a call whose batch was written already, and requires that
 * its late replies do not reach the next call on the same connections (it passes with the
 * cancellation suppressed too: it guards against mixed-up replies, not unsent batches).
 */
@WithRedisCluster
class ReactiveCancellationIntegrationTests {

	/**
	 * Long enough for the other masters to answer on a busy machine before the cancel,
	 * and far enough below the call's 5 s timeout that an uncancelled call would still
	 * write its batch after the pause.
	 */
	private static final long PAUSE_MILLIS = 1500;

	private static final int KEYS = 300;

	private static final Duration WAIT = Duration.ofSeconds(20);

	@Test
	void aCancelledMultiGetSendsNoMgetToTheMasterWhoseConnectionWasOpening(RedisTestCluster cluster) {
		byte[][] keys = MultiKeyCommandsIntegrationTests.keys("cancel-get:", KEYS);
		runner(cluster).run((context) -> {
			Cancelled cancelled = cancelWhileConnecting(cluster, context, "mget",
					(reactive) -> reactive.stringCommands().mGet(buffers(keys)));
			assertThat(cluster.countClients(cancelled.paused(), MultiKeyTestSupport.CLIENT_NAME))
				.as("the connection to the paused master completed after the pause")
				.isPositive();
			assertThat(cluster.commandCalls(cancelled.paused(), "mget")).isZero();
			for (RedisNode other : cancelled.others()) {
				assertThat(cluster.commandCalls(other, "mget")).as("%s", other).isPositive();
			}
		});
	}

	@Test
	void aCancelledMultiSetWritesNothingOnTheMasterWhoseConnectionWasOpening(RedisTestCluster cluster) {
		Map<ByteBuffer, ByteBuffer> tuples = new LinkedHashMap<>();
		for (byte[] key : MultiKeyCommandsIntegrationTests.keys("cancel-set:", KEYS)) {
			tuples.put(ByteBuffer.wrap(key), ByteBuffer.wrap(key));
		}
		runner(cluster).run((context) -> {
			Cancelled cancelled = cancelWhileConnecting(cluster, context, "mset",
					(reactive) -> reactive.stringCommands().mSet(tuples));
			assertThat(cluster.commandCalls(cancelled.paused(), "mset")).isZero();
			assertThat(cluster.withAdmin(cancelled.paused(), Jedis::dbSize)).isZero();
			for (RedisNode other : cancelled.others()) {
				assertThat(cluster.withAdmin(other, Jedis::dbSize)).as("%s", other).isPositive();
			}
		});
	}

	@Test
	void aCancelledCallEmitsNothingAndCountsAsFailed(RedisTestCluster cluster) {
		byte[][] keys = MultiKeyCommandsIntegrationTests.keys("cancel-signal:", KEYS);
		runner(cluster).run((context) -> {
			Cancelled cancelled = cancelWhileConnecting(cluster, context, "mget",
					(reactive) -> reactive.stringCommands().mGet(buffers(keys)));
			assertThat(cancelled.signals()).isEmpty();
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(calls(registry, "success")).isZero();
			assertThat(calls(registry, "failure")).isOne();
		});
	}

	@Test
	void aCallAfterOneCancelledWithBatchesInFlightReturnsItsOwnValues(RedisTestCluster cluster) {
		byte[][] keys = MultiKeyCommandsIntegrationTests.keys("cancel-next:", KEYS);
		List<ByteBuffer> expected = new ArrayList<>();
		for (byte[] key : keys) {
			byte[] value = ("value-of-" + new String(key, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
			cluster.withAdmin(cluster.masterServing(new String(key, StandardCharsets.UTF_8)),
					(jedis) -> jedis.set(key, value));
			expected.add(ByteBuffer.wrap(value));
		}
		// The cancelled batch is written to the paused master and its replies come after
		// the cancel, on the connection the next call uses, where they must not be taken
		// for that call's.
		MultiKeyTestSupport.runner("lettuce", cluster).run((context) -> {
			assertThat(context).hasNotFailed();
			ReactiveRedisClusterConnection reactive = context.getBean(ReactiveRedisConnectionFactory.class)
				.getReactiveClusterConnection();
			try {
				// Opens the node connections the engine writes to (pre-warm opens
				// Lettuce's, keyed by node id).
				assertThat(reactive.stringCommands().mGet(buffers(keys)).block(WAIT)).isEqualTo(expected);
				RedisNode paused = cluster.masters().get(0);
				List<RedisNode> others = others(cluster, paused);
				cluster.resetStats();
				cluster.withAdmin(paused, (jedis) -> jedis.clientPause(PAUSE_MILLIS));
				Disposable subscription = reactive.stringCommands().mGet(buffers(keys)).subscribe();
				assertThat(MultiKeyTestSupport
					.eventually(() -> others.stream().allMatch((other) -> cluster.commandCalls(other, "mget") > 0)))
					.isTrue();
				// Time for the paused master's batch to leave the event loop: Lettuce
				// drops a command cancelled before it is written, and this test is about
				// replies to commands cancelled after.
				Thread.sleep(200);
				subscription.dispose();
				cluster.withAdmin(paused, Jedis::ping);
				assertThat(MultiKeyTestSupport.eventually(() -> cluster.commandCalls(paused, "mget") > 0))
					.as("the cancelled batch ran after the pause")
					.isTrue();
				assertThat(reactive.stringCommands().mGet(buffers(keys)).block(WAIT)).isEqualTo(expected);
			}
			finally {
				reactive.close();
			}
		});
	}

	/**
	 * Subscribes to a call while the connection to a master the application has none to
	 * yet cannot open, disposes of the subscription once the other masters executed their
	 * batches, and returns after the pause ended and that connection had time to
	 * complete.
	 */
	private static Cancelled cancelWhileConnecting(RedisTestCluster cluster, AssertableApplicationContext context,
			String command, Function<ReactiveRedisClusterConnection, Mono<?>> call) throws InterruptedException {
		assertThat(context).hasNotFailed();
		ReactiveRedisClusterConnection reactive = context.getBean(ReactiveRedisConnectionFactory.class)
			.getReactiveClusterConnection();
		// Opened now, so that the call itself opens nothing but node connections (its
		// topology comes with this one).
		context.getBean(SlotwiseLettuceConnectionFactory.class).getOrCreateSharedClusterConnection();
		RedisNode paused = cluster.masters()
			.stream()
			.filter((master) -> cluster.countClients(master, MultiKeyTestSupport.CLIENT_NAME) == 0)
			.findFirst()
			.orElseThrow(() -> new AssertionError("Every master has a connection of the application already"));
		// Read before the pause: the roles come from CLUSTER NODES, which the paused
		// master would hold too.
		List<RedisNode> others = others(cluster, paused);
		cluster.resetStats();
		long pausedAt = System.nanoTime();
		cluster.withAdmin(paused, (jedis) -> jedis.clientPause(PAUSE_MILLIS));
		List<Object> signals = new ArrayList<>();
		try {
			Disposable subscription = call.apply(reactive)
				.subscribe(signals::add, signals::add, () -> signals.add("complete"));
			boolean othersAnswered = MultiKeyTestSupport
				.eventually(() -> others.stream().allMatch((other) -> cluster.commandCalls(other, command) > 0));
			subscription.dispose();
			long cancelledAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedAt);
			assertThat(othersAnswered).as("the other masters executed their %s", command).isTrue();
			// Otherwise the connection could have opened, and the batch gone out, before
			// the cancel.
			assertThat(cancelledAfter).as("cancelled while the master was paused").isLessThan(PAUSE_MILLIS - 300);
			// Held until the pause ends, like the connection's handshake; the sleep lets
			// that connection complete (and write, were the batch not cancelled).
			cluster.withAdmin(paused, Jedis::ping);
			Thread.sleep(300);
		}
		finally {
			reactive.close();
		}
		return new Cancelled(paused, others, signals);
	}

	private static List<RedisNode> others(RedisTestCluster cluster, RedisNode paused) {
		return cluster.masters().stream().filter((master) -> !master.equals(paused)).toList();
	}

	private static long calls(MeterRegistry registry, String outcome) {
		return registry.find(MultiKeyMeters.CALLS)
			.tag("command", "mget")
			.tag("outcome", outcome)
			.timers()
			.stream()
			.mapToLong(Timer::count)
			.sum();
	}

	private static List<ByteBuffer> buffers(byte[][] keys) {
		List<ByteBuffer> buffers = new ArrayList<>(keys.length);
		for (byte[] key : keys) {
			buffers.add(ByteBuffer.wrap(key));
		}
		return buffers;
	}

	private static ApplicationContextRunner runner(RedisTestCluster cluster) {
		return MultiKeyTestSupport.runner("lettuce", cluster)
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("slotwise.pool.prewarm=false", "spring.data.redis.timeout=5s",
					"slotwise.multikey.timeout=5s");
	}

	/**
	 * What a cancelled call left.
	 *
	 * @param paused the master whose connection was opening when the call was cancelled
	 * @param others the other masters
	 * @param signals what the call emitted: values, errors, {@code "complete"}
	 */
	private record Cancelled(RedisNode paused, List<RedisNode> others, List<Object> signals) {
	}

}
