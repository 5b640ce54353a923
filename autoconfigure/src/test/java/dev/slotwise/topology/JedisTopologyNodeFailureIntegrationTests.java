package dev.slotwise.topology;

import java.util.List;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.ClusterStateFailureException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Slotwise's Jedis topology provider while nodes are down, on a cluster of its own. The last test stops every node.
 */
@WithRedisCluster(dedicated = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class JedisTopologyNodeFailureIntegrationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.client-type=jedis", "slotwise.pool.prewarm=false",
				"slotwise.topology.prefer-replicas=false", "spring.data.redis.timeout=1s",
				"spring.data.redis.connect-timeout=1s");

	@Test
	@Order(1)
	void refreshesKeepSucceedingThroughTheOtherNodesWhenOneNodeIsDown(RedisTestCluster cluster) {
		RedisNode down = cluster.replicas().get(0);
		List<RedisNode> up = cluster.nodes().stream().filter((node) -> !node.equals(down)).toList();
		this.runner.withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.nodesProperty()).run((context) -> {
			RefreshableTopologyProvider provider = provider(context.getBean(SlotwiseJedisConnectionFactory.class));
			provider.getTopology();
			cluster.kill(down);
			try {
				cluster.resetStats();
				int refreshes = 60;
				JedisTopologyIntegrationTests.refresh(provider, refreshes);
				long answered = up.stream().mapToLong((node) -> cluster.commandCalls(node, "cluster|nodes")).sum();
				assertThat(answered).isEqualTo(refreshes);
			}
			finally {
				cluster.restart(down);
				cluster.awaitHealthy();
			}
		});
	}

	@Test
	@Order(2)
	void exceptionNamesEveryNodeWhenAllNodesAreDown(RedisTestCluster cluster) {
		this.runner.withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.nodesProperty()).run((context) -> {
			RefreshableTopologyProvider provider = provider(context.getBean(SlotwiseJedisConnectionFactory.class));
			provider.getTopology();
			cluster.nodes().forEach(cluster::kill);
			provider.invalidate();
			assertThatExceptionOfType(ClusterStateFailureException.class).isThrownBy(provider::getTopology)
				.satisfies((ex) -> assertThat(ex.getMessage()).contains(
						cluster.nodes().stream().map(RedisNode::address).toArray(String[]::new)));
		});
	}

	private static RefreshableTopologyProvider provider(SlotwiseJedisConnectionFactory factory) {
		return (RefreshableTopologyProvider) factory.getRequiredTopologyProvider();
	}

}
