package dev.slotwise.internal.metrics;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.internal.routing.SlotHash;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Multi-key and executor meters move as the servers see the commands, on both clients.
 */
@WithRedisCluster
class MultiKeyMetersIntegrationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class,
				MetricsAutoConfiguration.class))
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
		.withPropertyValues("slotwise.pool.prewarm=false", "spring.data.redis.timeout=2s");

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void crossSlotMGetsAreTimedOncePerCallWhileServersCountOneMgetPerSlot(String client, RedisTestCluster cluster) {
		byte[][] keys = keys("m:", 200);
		int calls = 7;
		run(client, cluster, (registry, connection) -> {
			cluster.resetStats();
			for (int i = 0; i < calls; i++) {
				connection.stringCommands().mGet(keys);
			}
			Timer timer = registry.get(MultiKeyMeters.CALLS)
				.tag("client", client)
				.tag("command", "mget")
				.tag("outcome", "success")
				.timer();
			assertThat(timer.count()).isEqualTo(calls);
			assertThat(timer.totalTime(TimeUnit.NANOSECONDS)).isPositive();
			assertThat(cluster.totalCommandCalls("mget")).isEqualTo((long) calls * slots(keys));
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void keysPerCallAreSummarizedPerCommand(String client, RedisTestCluster cluster) {
		run(client, cluster, (registry, connection) -> {
			connection.keyCommands().del(keys("d:", 30));
			connection.keyCommands().del(keys("d:", 50));
			assertThat(registry.get(MultiKeyMeters.KEYS).tag("client", client).tag("command", "del").summary())
				.satisfies((summary) -> {
					assertThat(summary.count()).isEqualTo(2);
					assertThat(summary.totalAmount()).isEqualTo(80);
				});
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void sameSlotCallsAreNotTimedAsTheyBypassTheEngine(String client, RedisTestCluster cluster) {
		run(client, cluster, (registry, connection) -> {
			connection.stringCommands().mGet(keys("{one}:", 20));
			assertThat(registry.find(MultiKeyMeters.CALLS).tag("client", client).timers())
				.allSatisfy((timer) -> assertThat(timer.count()).isZero());
		});
	}

	@Test
	void executorGaugesReportConfiguredThreadsAndNoSaturation(RedisTestCluster cluster) {
		run("jedis", cluster.nodesProperty(), "slotwise.multikey.jedis-executor.threads=5", (registry, connection) -> {
			connection.stringCommands().mGet(keys("e:", 100));
			assertThat(registry.get(MultiKeyExecutorMeters.MAX).gauge().value()).isEqualTo(5);
			assertThat(registry.get(MultiKeyExecutorMeters.ACTIVE).gauge().value()).isBetween(0.0, 5.0);
			assertThat(registry.get(MultiKeyExecutorMeters.QUEUED).gauge().value()).isZero();
			assertThat(
					registry.get(MultiKeyExecutorMeters.CALLER_RUNS).tag("name", "multikey").functionCounter().count())
				.isZero();
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void metricsDisabledRegistersNoMultiKeyOrExecutorMeters(String client, RedisTestCluster cluster) {
		run(client, cluster.nodesProperty(), "slotwise.metrics.enabled=false", (registry, connection) -> {
			connection.stringCommands().mGet(keys("x:", 100));
			assertThat(registry.find(MultiKeyMeters.CALLS).meters()).isEmpty();
			assertThat(registry.find(MultiKeyMeters.KEYS).meters()).isEmpty();
			assertThat(registry.find(MultiKeyMeters.REDIRECTS).meters()).isEmpty();
			assertThat(registry.find(MultiKeyExecutorMeters.MAX).meters()).isEmpty();
		});
	}

	private void run(String client, RedisTestCluster cluster, MetersTest test) {
		run(client, cluster.nodesProperty(), "slotwise.metrics.enabled=true", test);
	}

	private void run(String client, String nodes, String property, MetersTest test) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=" + client, "spring.data.redis.cluster.nodes=" + nodes,
					property)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class)
					.getClusterConnection()) {
					test.accept(context.getBean(MeterRegistry.class), connection);
				}
			});
	}

	private static byte[][] keys(String prefix, int count) {
		byte[][] keys = new byte[count][];
		for (int i = 0; i < count; i++) {
			keys[i] = (prefix + i).getBytes(StandardCharsets.UTF_8);
		}
		return keys;
	}

	private static int slots(byte[][] keys) {
		Set<Integer> slots = new HashSet<>();
		for (byte[] key : keys) {
			slots.add(SlotHash.slot(key));
		}
		return slots.size();
	}

	@FunctionalInterface
	private interface MetersTest {

		void accept(MeterRegistry registry, RedisClusterConnection connection) throws Exception;

	}

}
