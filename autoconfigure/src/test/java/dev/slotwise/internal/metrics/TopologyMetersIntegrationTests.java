package dev.slotwise.internal.metrics;

import java.util.concurrent.TimeUnit;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import dev.slotwise.internal.topology.RefreshableTopologyProvider;
import io.lettuce.core.cluster.RedisClusterClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.ClusterTopologyProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Topology meters move when refreshes and lookups happen, on both clients.
 */
@WithRedisCluster
class TopologyMetersIntegrationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class,
				MetricsAutoConfiguration.class))
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
		.withPropertyValues("slotwise.pool.prewarm=false", "slotwise.topology.cache-ttl=60s",
				"slotwise.topology.min-refresh-interval=0");

	@Test
	void jedisRefreshIsTimedPerNodeWithOutcome(RedisTestCluster cluster) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=jedis",
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty())
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				RefreshableTopologyProvider provider = (RefreshableTopologyProvider) context
					.getBean(SlotwiseJedisConnectionFactory.class)
					.getRequiredTopologyProvider();
				long before = refreshCount(registry, "jedis");
				provider.invalidate();
				provider.getTopology();
				assertThat(refreshCount(registry, "jedis")).isEqualTo(before + 1);
				FunctionTimer timer = registry.get(TopologyMeters.REFRESHES)
					.tag("client", "jedis")
					.tag("outcome", "success")
					.functionTimer();
				assertThat(timer.getId().getTag("node")).matches("127\\.0\\.0\\.1:\\d+");
				assertThat(timer.totalTime(TimeUnit.NANOSECONDS)).isPositive();
			});
	}

	@Test
	void jedisLookupsCountHitsAndMisses(RedisTestCluster cluster) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=jedis",
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty())
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				RefreshableTopologyProvider provider = (RefreshableTopologyProvider) context
					.getBean(SlotwiseJedisConnectionFactory.class)
					.getRequiredTopologyProvider();
				provider.getTopology();
				double hits = lookups(registry, "jedis", "hit");
				double misses = lookups(registry, "jedis", "miss");
				provider.getTopology();
				provider.getTopology();
				provider.invalidate();
				provider.getTopology();
				assertThat(lookups(registry, "jedis", "hit")).isEqualTo(hits + 2);
				assertThat(lookups(registry, "jedis", "miss")).isEqualTo(misses + 1);
			});
	}

	@Test
	void jedisTopologyAgeGrowsAndResetsOnRefresh(RedisTestCluster cluster) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=jedis",
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty())
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				RefreshableTopologyProvider provider = (RefreshableTopologyProvider) context
					.getBean(SlotwiseJedisConnectionFactory.class)
					.getRequiredTopologyProvider();
				provider.getTopology();
				Thread.sleep(300);
				double aged = age(registry, "jedis");
				assertThat(aged).isGreaterThanOrEqualTo(0.3);
				provider.invalidate();
				provider.getTopology();
				assertThat(age(registry, "jedis")).isLessThan(aged);
			});
	}

	@Test
	void lettuceRefreshIsTimedPerSourceAndConversionsCountAsMisses(RedisTestCluster cluster) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=lettuce",
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "slotwise.topology.refresh-sources=2")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				SlotwiseLettuceConnectionFactory factory = context.getBean(SlotwiseLettuceConnectionFactory.class);
				factory.getClusterConnection().close();
				ClusterTopologyProvider provider = factory.getRequiredTopologyProvider();
				long before = refreshCount(registry, "lettuce");
				((RedisClusterClient) factory.getRequiredNativeClient()).refreshPartitions();
				assertThat(refreshCount(registry, "lettuce")).isEqualTo(before + 2);
				double misses = lookups(registry, "lettuce", "miss");
				double hits = lookups(registry, "lettuce", "hit");
				provider.getTopology();
				provider.getTopology();
				assertThat(lookups(registry, "lettuce", "miss")).isEqualTo(misses + 1);
				assertThat(lookups(registry, "lettuce", "hit")).isEqualTo(hits + 1);
				assertThat(age(registry, "lettuce")).isLessThan(5.0);
			});
	}

	private static long refreshCount(MeterRegistry registry, String client) {
		return registry.find(TopologyMeters.REFRESHES)
			.tag("client", client)
			.functionTimers()
			.stream()
			.mapToLong((timer) -> (long) timer.count())
			.sum();
	}

	private static double lookups(MeterRegistry registry, String client, String result) {
		return registry.get(TopologyMeters.LOOKUPS)
			.tag("client", client)
			.tag("result", result)
			.functionCounter()
			.count();
	}

	private static double age(MeterRegistry registry, String client) {
		return registry.get(TopologyMeters.AGE).tag("client", client).timeGauge().value(TimeUnit.SECONDS);
	}

}
