package dev.slotwise.autoconfigure;

import java.util.Map;

import dev.slotwise.internal.health.ClusterHealthIndicator;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every fast path that relies on a library internal is active against the libraries on
 * the class path, and Slotwise says so in three places: one start-up log line per
 * connection factory, the {@code redis} health details and the Actuator {@code info}
 * contribution. A library upgrade that switches one off fails here.
 */
@WithRedisCluster
@ExtendWith(OutputCaptureExtension.class)
class SlotwiseFastPathsIntegrationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class,
				SlotwiseFastPathsAutoConfiguration.class));

	@Test
	void jedisFastPathsAreActiveAndReported(RedisTestCluster cluster, CapturedOutput output) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=jedis",
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertReported(context, output,
						Map.of("spring-boot-factory-replacement", "active", "jedis-slot-cache", "active",
								"spring-data-jedis-topology-type", "active", "spring-data-jedis-pipeline-replay",
								"active", "jedis-retry-settings", "active", "jedis-renewal-pacing", "active"),
						"Slotwise fast paths of 'redisConnectionFactory': active spring-boot-factory-replacement, "
								+ "jedis-slot-cache, spring-data-jedis-topology-type, spring-data-jedis-pipeline-replay, "
								+ "jedis-retry-settings, jedis-renewal-pacing");
			});
	}

	@Test
	void lettuceFastPathsAreActiveAndReported(RedisTestCluster cluster, CapturedOutput output) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=lettuce",
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertReported(context, output,
						Map.of("spring-boot-factory-replacement", "active", "lettuce-cancelled-stay-unwritten",
								"active", "lettuce-batch-write", "active", "lettuce-batch-write-listeners", "active",
								"lettuce-read-from-order", "active", "lettuce-event-endpoint-id", "active",
								"lettuce-scan-args", "active", "lettuce-reactive-routing", "active"),
						"Slotwise fast paths of 'redisConnectionFactory': active spring-boot-factory-replacement, "
								+ "lettuce-cancelled-stay-unwritten, lettuce-batch-write, lettuce-batch-write-listeners, "
								+ "lettuce-read-from-order, lettuce-event-endpoint-id, lettuce-scan-args, "
								+ "lettuce-reactive-routing");
			});
	}

	@Test
	void withoutSlotwiseNothingIsReported(RedisTestCluster cluster, CapturedOutput output) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=lettuce",
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "slotwise.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean("slotwiseInfoContributor");
				assertThat(output).doesNotContain("Slotwise fast paths");
			});
	}

	@SuppressWarnings("unchecked")
	private static void assertReported(AssertableApplicationContext context, CapturedOutput output,
			Map<String, String> expected, String logLine) {
		assertThat(output).containsOnlyOnce(logLine);
		RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
		Map<String, Object> health = new ClusterHealthIndicator(factory).health().getDetails();
		assertThat((Map<String, String>) health.get("fastPaths")).isEqualTo(expected);
		Info.Builder info = new Info.Builder();
		context.getBean("slotwiseInfoContributor", InfoContributor.class).contribute(info);
		Map<String, Object> slotwise = (Map<String, Object>) info.build().getDetails().get("slotwise");
		assertThat((Map<String, String>) slotwise.get("fastPaths")).isEqualTo(expected);
	}

}
