package dev.slotwise.internal.multikey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every thread Slotwise starts belongs to an object whose lifecycle ends it: once the
 * application context closes, no thread named {@code slotwise-*} is alive, over either
 * client, after cross-slot calls (imperative and reactive), replica reads, metrics,
 * pre-warm and the near cache's tracking have run.
 */
@WithRedisCluster
class ThreadsOwnedIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	/**
	 * Longer than a shutdown takes, far shorter than an idle pool thread's keep-alive.
	 */
	private static final Duration GRACE = Duration.ofSeconds(3);

	@Test
	void noJedisThreadOutlivesTheContext(RedisTestCluster cluster) {
		Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
		MultiKeyTestSupport.runner("jedis", cluster)
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("slotwise.multikey.read-from=replica-preferred", "slotwise.near-cache.enabled=true",
					"slotwise.near-cache.key-prefixes=k")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				crossSlotCalls(context.getBean(StringRedisTemplate.class));
				assertThat(slotwiseThreads(before)).as("threads Slotwise started while running").isNotEmpty();
			});
		assertNoneLeft(before);
	}

	@Test
	void noLettuceThreadOutlivesTheContext(RedisTestCluster cluster) {
		Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
		MultiKeyTestSupport.runner("lettuce", cluster)
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("slotwise.near-cache.enabled=true", "slotwise.near-cache.key-prefixes=k")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				crossSlotCalls(context.getBean(StringRedisTemplate.class));
				ReactiveStringRedisTemplate reactive = new ReactiveStringRedisTemplate(
						context.getBean(ReactiveRedisConnectionFactory.class));
				List<String> keys = keys();
				assertThat(reactive.opsForValue().multiGet(keys).block(WAIT)).hasSize(keys.size());
				assertThat(reactive.countExistingKeys(keys).block(WAIT)).isEqualTo(keys.size());
			});
		assertNoneLeft(before);
	}

	private static void crossSlotCalls(StringRedisTemplate template) {
		List<String> keys = keys();
		Map<String, String> tuples = new LinkedHashMap<>();
		keys.forEach((key) -> tuples.put(key, "v-" + key));
		template.opsForValue().multiSet(tuples);
		for (int i = 0; i < 20; i++) {
			assertThat(template.opsForValue().multiGet(keys)).hasSize(keys.size());
		}
	}

	private static List<String> keys() {
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			keys.add("threads:" + i);
		}
		return keys;
	}

	private static void assertNoneLeft(Set<Thread> before) {
		MultiKeyTestSupport.eventually(GRACE, () -> slotwiseThreads(before).isEmpty());
		assertThat(slotwiseThreads(before)).as("threads Slotwise started that are alive after the context closed")
			.isEmpty();
	}

	private static List<String> slotwiseThreads(Set<Thread> before) {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> !before.contains(thread) && thread.isAlive() && thread.getName().startsWith("slotwise"))
			.map(Thread::getName)
			.sorted()
			.collect(Collectors.toList());
	}

}
