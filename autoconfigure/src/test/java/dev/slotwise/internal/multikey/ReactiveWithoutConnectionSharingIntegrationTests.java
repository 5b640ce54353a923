package dev.slotwise.internal.multikey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactoryCustomizer;
import dev.slotwise.internal.metrics.MultiKeyMeters;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With native connection sharing off (Spring Boot 4.1 has no property for it; here a
 * {@link SlotwiseLettuceConnectionFactoryCustomizer} turns it off), reactive cross-slot
 * calls still run on the engine, over a cluster connection the factory opens for it and
 * closes when it stops, while the other calls go over Spring Data Redis's dedicated
 * connections. Checked to fail before that change: the engine counted none of the
 * reactive calls (the first and the restart test failed; the close test passed, Spring
 * Data Redis alone releasing its connections too, and the single-slot test, written
 * later, asserts what Spring Data Redis alone does).
 */
@WithRedisCluster
class ReactiveWithoutConnectionSharingIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@Test
	void reactiveCallsEqualTheImperativePathsAndRunOnTheEngine(RedisTestCluster cluster) {
		runner(cluster).run((context) -> {
			assertThat(context).hasNotFailed();
			SlotwiseLettuceConnectionFactory factory = context.getBean(SlotwiseLettuceConnectionFactory.class);
			assertThat(factory.getShareNativeConnection()).isFalse();
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			StringRedisTemplate imperative = new StringRedisTemplate(factory);
			ReactiveStringRedisTemplate reactive = new ReactiveStringRedisTemplate(factory);
			Map<String, String> tuples = tuples("unshared:", 1000);
			List<String> keys = new ArrayList<>(tuples.keySet());
			keys.add("unshared:missing");

			assertThat(onEngine(registry, "mset", () -> reactive.opsForValue().multiSet(tuples))).isTrue();
			List<String> written = new ArrayList<>(tuples.values());
			written.add(null);
			assertThat(imperative.opsForValue().multiGet(keys)).isEqualTo(written);
			cluster.resetStats();
			assertThat(onEngine(registry, "mget", () -> reactive.opsForValue().multiGet(keys)))
				.isEqualTo(imperative.opsForValue().multiGet(keys));
			// Both paths send one MGET per slot (1,001 keys over some 970 slots), and no
			// per-key GET.
			assertThat(cluster.totalCommandCalls("mget")).isBetween(2L * 900, 2L * 1001);
			assertThat(cluster.totalCommandCalls("get")).isZero();
			assertThat(onEngine(registry, "exists", () -> reactive.countExistingKeys(keys)))
				.isEqualTo(imperative.countExistingKeys(keys))
				.isEqualTo(1000);
			String[] deleted = keys.subList(0, 500).toArray(new String[0]);
			String[] unlinked = keys.subList(500, 1001).toArray(new String[0]);
			assertThat(onEngine(registry, "del", () -> reactive.delete(deleted))).isEqualTo(500);
			assertThat(onEngine(registry, "unlink", () -> reactive.unlink(unlinked))).isEqualTo(500);
			assertThat(imperative.countExistingKeys(keys)).isZero();
		});
	}

	@Test
	void singleSlotCallsStayWithSpringDataRedisOverADedicatedConnection(RedisTestCluster cluster) {
		runner(cluster).run((context) -> {
			assertThat(context).hasNotFailed();
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			ReactiveStringRedisTemplate reactive = new ReactiveStringRedisTemplate(
					context.getBean(SlotwiseLettuceConnectionFactory.class));
			Map<String, String> tuples = tuples("{unshared-slot}:", 100);
			assertThat(reactive.opsForValue().multiSet(tuples).block(WAIT)).isTrue();
			assertThat(reactive.opsForValue().multiGet(tuples.keySet()).block(WAIT))
				.containsExactlyElementsOf(tuples.values());
			assertThat(reactive.opsForValue().get("{unshared-slot}:7").block(WAIT)).isEqualTo("value-7");
			assertThat(registry.find(MultiKeyMeters.CALLS).timers()).allMatch((timer) -> timer.count() == 0);
		});
	}

	@Test
	void noConnectionOfTheApplicationRemainsAfterTheContextCloses(RedisTestCluster cluster) {
		runner(cluster).run((context) -> {
			assertThat(context).hasNotFailed();
			ReactiveStringRedisTemplate reactive = new ReactiveStringRedisTemplate(
					context.getBean(SlotwiseLettuceConnectionFactory.class));
			Map<String, String> tuples = tuples("unshared-close:", 300);
			assertThat(reactive.opsForValue().multiSet(tuples).block(WAIT)).isTrue();
			assertThat(reactive.opsForValue().multiGet(tuples.keySet()).block(WAIT))
				.containsExactlyElementsOf(tuples.values());
			assertThat(MultiKeyTestSupport.applicationConnections(cluster)).isPositive();
		});
		assertThat(MultiKeyTestSupport.eventually(() -> MultiKeyTestSupport.applicationConnections(cluster) == 0))
			.as("connections of the application left: %d", MultiKeyTestSupport.applicationConnections(cluster))
			.isTrue();
	}

	@Test
	void aRestartedFactoryReleasesTheEnginesConnectionAndRunsCallsOnTheEngineAgain(RedisTestCluster cluster) {
		runner(cluster).run((context) -> {
			assertThat(context).hasNotFailed();
			SlotwiseLettuceConnectionFactory factory = context.getBean(SlotwiseLettuceConnectionFactory.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			ReactiveStringRedisTemplate reactive = new ReactiveStringRedisTemplate(factory);
			Map<String, String> tuples = tuples("unshared-restart:", 300);
			assertThat(onEngine(registry, "mset", () -> reactive.opsForValue().multiSet(tuples))).isTrue();
			factory.stop();
			assertThat(MultiKeyTestSupport.eventually(() -> MultiKeyTestSupport.applicationConnections(cluster) == 0))
				.isTrue();
			factory.start();
			assertThat(onEngine(registry, "mget", () -> reactive.opsForValue().multiGet(tuples.keySet())))
				.containsExactlyElementsOf(tuples.values());
		});
	}

	/**
	 * Runs one reactive call and requires that the engine ran it: one more successful
	 * call of the command counted.
	 */
	private static <T> T onEngine(MeterRegistry registry, String command, Supplier<Mono<T>> call) {
		long before = engineCalls(registry, command);
		T result = call.get().block(WAIT);
		// The engine counts the call once its future completed, which may be just after
		// the Mono emitted.
		MultiKeyTestSupport.eventually(() -> engineCalls(registry, command) > before);
		assertThat(engineCalls(registry, command)).as("%s calls run by the engine", command).isEqualTo(before + 1);
		return result;
	}

	private static long engineCalls(MeterRegistry registry, String command) {
		return registry.find(MultiKeyMeters.CALLS)
			.tag("command", command)
			.tag("outcome", "success")
			.timers()
			.stream()
			.mapToLong(Timer::count)
			.sum();
	}

	private static Map<String, String> tuples(String prefix, int count) {
		Map<String, String> tuples = new LinkedHashMap<>();
		for (int i = 0; i < count; i++) {
			tuples.put(prefix + i, "value-" + i);
		}
		return tuples;
	}

	private static ApplicationContextRunner runner(RedisTestCluster cluster) {
		return MultiKeyTestSupport.runner("lettuce", cluster)
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withBean(SlotwiseLettuceConnectionFactoryCustomizer.class,
					() -> (factory) -> factory.setShareNativeConnection(false));
	}

}
