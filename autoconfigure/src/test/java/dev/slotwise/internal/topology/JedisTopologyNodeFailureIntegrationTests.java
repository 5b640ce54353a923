package dev.slotwise.internal.topology;

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
import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.jedis.JedisClusterConnection.JedisClusterTopologyProvider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Slotwise's Jedis topology provider while nodes are down, on a cluster of its own. The
 * last test stops every node.
 */
@WithRedisCluster(dedicated = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class JedisTopologyNodeFailureIntegrationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.client-type=jedis", "slotwise.pool.prewarm=false",
				"slotwise.topology.prefer-replicas=false", "spring.data.redis.timeout=1s",
				"spring.data.redis.connect-timeout=1s",
				// Refreshes forced by invalidate() are counted here; pacing is tested in
				// RefreshPacingIntegrationTests.
				"slotwise.topology.min-refresh-interval=0");

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
	void whenAllNodesAreDownTheLastTopologyStaysAndWithoutOneTheLookupNamesEveryNode(RedisTestCluster cluster) {
		ApplicationContextRunner runner = this.runner
			.withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.nodesProperty());
		// The second context backs off after its failed refresh (the first has no
		// interval: it refreshes, and fails).
		runner.run((withTopology) -> runner.withPropertyValues("slotwise.topology.min-refresh-interval=30s")
			.run((withoutTopology) -> {
				RefreshableTopologyProvider cached = provider(
						withTopology.getBean(SlotwiseJedisConnectionFactory.class));
				RefreshableTopologyProvider empty = provider(
						withoutTopology.getBean(SlotwiseJedisConnectionFactory.class));
				assertThat(empty).isInstanceOf(JedisClusterTopologyProvider.class);
				ClusterTopology before = cached.getTopology();
				// The nodes the client holds pools for (its CLUSTER SLOTS view) are the
				// nodes a lookup can ask.
				String[] known = withoutTopology.getBean(SlotwiseJedisConnectionFactory.class)
					.getRequiredClusterClient()
					.getClusterNodes()
					.keySet()
					.toArray(String[]::new);
				assertThat(known).isNotEmpty();
				cluster.nodes().forEach(cluster::kill);
				// Stale-while-error: the last topology stays in use, callers reach the
				// nodes and see their errors.
				cached.invalidate();
				assertThat(cached.getTopology()).isSameAs(before);
				// No topology yet (pre-warm off): the lookup fails naming every node it
				// could ask...
				assertThatExceptionOfType(ClusterStateFailureException.class).isThrownBy(empty::getTopology)
					.satisfies((ex) -> assertThat(ex.getMessage()).contains(known))
					.satisfies((ex) -> assertThat(ex.getMessage()).doesNotContain("No cluster topology yet"));
				// ...and the next one, within the back-off, asks no node again but
				// repeats the last failure.
				assertThatExceptionOfType(ClusterStateFailureException.class).isThrownBy(empty::getTopology)
					.withMessageContaining("No cluster topology yet")
					.satisfies((ex) -> assertThat(ex.getMessage()).contains(known));
			}));
	}

	private static RefreshableTopologyProvider provider(SlotwiseJedisConnectionFactory factory) {
		return (RefreshableTopologyProvider) factory.getRequiredTopologyProvider();
	}

}
