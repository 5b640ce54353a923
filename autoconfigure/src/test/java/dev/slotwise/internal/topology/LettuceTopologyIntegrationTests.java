package dev.slotwise.internal.topology;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.RedisClusterConnection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Slotwise's Lettuce topology against a real cluster: what one refresh costs each node,
 * counted by the servers ({@code INFO commandstats}, {@code total_connections_received}),
 * and the cached converted topology.
 */
@WithRedisCluster
class LettuceTopologyIntegrationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.client-type=lettuce", "slotwise.pool.prewarm=false",
				"spring.data.redis.client-name=slotwise-topology-test");

	@Test
	void refreshWithOneSourceReachesExactlyOneNodeAndConnectsToNoOther(RedisTestCluster cluster) {
		withClient(cluster, (client, factory) -> {
			assertThat(client.getClass().getSimpleName()).isEqualTo("SamplingRedisClusterClient");
			cluster.resetStats();
			client.refreshPartitions();
			Map<RedisNode, Long> calls = cluster.commandCallsPerNode("cluster|nodes");
			Map<RedisNode, Long> connections = connectionsReceived(cluster);
			assertThat(calls.values()).containsOnlyOnce(1L).containsOnly(0L, 1L);
			calls.forEach((node, count) -> assertThat(connections.get(node)).as("connections received by %s", node)
				.isEqualTo(count));
		}, "slotwise.topology.refresh-sources=1");
	}

	@Test
	void refreshWithDefaultLettuceSettingsReachesEveryNode(RedisTestCluster cluster) {
		withClient(cluster, (client, factory) -> {
			assertThat(client.getClass()).isEqualTo(RedisClusterClient.class);
			cluster.resetStats();
			client.refreshPartitions();
			assertThat(cluster.commandCallsPerNode("cluster|nodes")).hasSize(cluster.nodes().size())
				.allSatisfy((node, count) -> assertThat(count).isOne());
			assertThat(connectionsReceived(cluster)).allSatisfy((node, count) -> assertThat(count).isPositive());
		}, "slotwise.topology.enabled=false");
	}

	@Test
	void refreshWithDefaultSlotwiseSettingsReachesThreeNodes(RedisTestCluster cluster) {
		withClient(cluster, (client, factory) -> {
			cluster.resetStats();
			client.refreshPartitions();
			assertThat(cluster.totalCommandCalls("cluster|nodes")).isEqualTo(3);
		});
	}

	@Test
	void convertedTopologyIsReusedUntilLettucesPartitionsChange(RedisTestCluster cluster) {
		withClient(cluster, (client, factory) -> {
			ClusterTopologyProvider provider = factory.getRequiredTopologyProvider();
			ClusterTopology first = provider.getTopology();
			assertThat(provider.getTopology()).isSameAs(first);
			client.refreshPartitions();
			ClusterTopology refreshed = provider.getTopology();
			assertThat(refreshed).isNotSameAs(first);
			assertThat(refreshed.getNodes()).isEqualTo(first.getNodes());
			assertThat(provider.getTopology()).isSameAs(refreshed);
		});
	}

	@Test
	void convertedTopologyIsSharedByAllClusterConnections(RedisTestCluster cluster) {
		withClient(cluster, (client, factory) -> {
			ClusterTopology first = factory.getRequiredTopologyProvider().getTopology();
			try (RedisClusterConnection connection = factory.getClusterConnection()) {
				assertThat(factory.getRequiredTopologyProvider().getTopology()).isSameAs(first);
			}
		});
	}

	@Test
	void refreshFallsBackToTheSeedNodesWhenNoKnownNodeAnswers(RedisTestCluster cluster) {
		withClient(cluster, (client, factory) -> {
			// Every known node moved away: the partitions name only addresses nothing
			// listens on.
			Partitions moved = new Partitions();
			for (int i = 0; i < 3; i++) {
				RedisClusterNode node = new RedisClusterNode();
				node.setUri(RedisURI.create("127.0.0.1", unusedPort()));
				node.setNodeId("gone-" + i);
				node.setFlags(Set.of(RedisClusterNode.NodeFlag.UPSTREAM));
				moved.add(node);
			}
			moved.updateCache();
			client.setPartitions(moved);
			cluster.resetStats();
			client.refreshPartitions();
			assertThat(cluster.totalCommandCalls("cluster|nodes")).as("seed nodes asked").isPositive();
			assertThat(client.getPartitions().stream().map((node) -> node.getUri().getPort()))
				.containsExactlyInAnyOrderElementsOf(cluster.nodes().stream().map(RedisNode::port).toList());
		});
	}

	private static int unusedPort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private void withClient(RedisTestCluster cluster,
			BiConsumer<RedisClusterClient, SlotwiseLettuceConnectionFactory> test, String... properties) {
		this.runner.withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.nodesProperty())
			.withPropertyValues(properties)
			.run((context) -> {
				SlotwiseLettuceConnectionFactory factory = context.getBean(SlotwiseLettuceConnectionFactory.class);
				// Opening a cluster connection loads the first topology, and creates the
				// topology provider.
				factory.getClusterConnection().close();
				test.accept((RedisClusterClient) factory.getRequiredNativeClient(), factory);
			});
	}

	static Map<RedisNode, Long> connectionsReceived(RedisTestCluster cluster) {
		Map<RedisNode, Long> connections = new LinkedHashMap<>();
		for (RedisNode node : cluster.nodes()) {
			String stats = cluster.withAdmin(node, (jedis) -> jedis.info("stats"));
			connections.put(node,
					stats.lines()
						.filter((line) -> line.startsWith("total_connections_received:"))
						.map((line) -> Long.parseLong(line.substring(line.indexOf(':') + 1).trim()))
						.findFirst()
						.orElseThrow());
		}
		return connections;
	}

}
