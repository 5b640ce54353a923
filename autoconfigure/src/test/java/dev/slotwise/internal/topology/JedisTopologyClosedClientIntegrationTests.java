package dev.slotwise.internal.topology;

import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;

import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.data.redis.ClusterStateFailureException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A topology lookup after the Jedis cluster client closed (a call in flight while the
 * application context closes, its topology stale) fails naming the closed client, instead
 * of renewing Jedis's slot cache from the seed nodes: that renewal re-creates every
 * node's pool on the closed client, which nothing closes any more and whose evictor keeps
 * {@code min-idle} connections open on every node, replicas included, and lets the call
 * succeed after close.
 */
@WithRedisCluster
class JedisTopologyClosedClientIntegrationTests {

	private static final String CLIENT_NAME = "slotwise-closed-topology-test";

	@Test
	void lookupOnAClosedClientFailsAndOpensNoConnection(RedisTestCluster cluster) throws Exception {
		Set<HostAndPort> seeds = cluster.nodes()
			.stream()
			.map((node) -> new HostAndPort(node.host(), node.port()))
			.collect(Collectors.toSet());
		ConnectionPoolConfig pool = new ConnectionPoolConfig();
		pool.setMinIdle(1);
		pool.setTimeBetweenEvictionRuns(Duration.ofMillis(100));
		RedisClusterClient client = RedisClusterClient.builder()
			.nodes(seeds)
			.poolConfig(pool)
			.clientConfig(DefaultJedisClientConfig.builder().clientName(CLIENT_NAME).build())
			.build();
		try {
			RandomizedJedisTopologyProvider provider = new RandomizedJedisTopologyProvider(client, new TopologySettings(
					Duration.ofSeconds(60), Duration.ZERO, true, Duration.ofSeconds(2), TopologyObserver.NONE));
			assertThat(provider.getTopology().getActiveMasterNodes()).hasSize(cluster.masters().size());
			client.close();
			assertThat(eventually(() -> connections(cluster) == 0)).as("connections of the closed client gone")
				.isTrue();
			provider.invalidate();
			assertThat(provider.getTopology()).as("the last topology, kept when a refresh fails").isNotNull();
			assertThat(client.getClusterNodes()).as("pools re-created on the closed client").isEmpty();
			Thread.sleep(500);
			assertThat(connections(cluster)).as("connections opened after close").isZero();
		}
		finally {
			client.close();
		}
	}

	@Test
	void firstLookupOnAClosedClientFailsNamingIt(RedisTestCluster cluster) {
		Set<HostAndPort> seeds = cluster.nodes()
			.stream()
			.map((node) -> new HostAndPort(node.host(), node.port()))
			.collect(Collectors.toSet());
		RedisClusterClient client = RedisClusterClient.builder()
			.nodes(seeds)
			.clientConfig(DefaultJedisClientConfig.builder().clientName(CLIENT_NAME).build())
			.build();
		try {
			RandomizedJedisTopologyProvider provider = new RandomizedJedisTopologyProvider(client, new TopologySettings(
					Duration.ofSeconds(60), Duration.ZERO, true, Duration.ofSeconds(2), TopologyObserver.NONE));
			client.close();
			assertThatExceptionOfType(ClusterStateFailureException.class).isThrownBy(provider::getTopology)
				.withMessageContaining("closed");
			assertThat(client.getClusterNodes()).as("pools re-created on the closed client").isEmpty();
		}
		finally {
			client.close();
		}
	}

	private static long connections(RedisTestCluster cluster) {
		long connections = 0;
		for (RedisNode node : cluster.nodes()) {
			connections += cluster.countClients(node, CLIENT_NAME);
		}
		return connections;
	}

	private static boolean eventually(java.util.function.BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
		while (System.nanoTime() < deadline) {
			if (condition.getAsBoolean()) {
				return true;
			}
			Thread.sleep(50);
		}
		return condition.getAsBoolean();
	}

}
