package dev.slotwise.internal.pool;

import java.util.List;
import java.util.Set;

import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisClusterNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pre-warm against nodes that cannot be reached: one warning naming each, the others
 * still warmed, no exception. A cluster of its own, because a node is killed.
 */
@WithRedisCluster(masters = 3, replicasPerMaster = 0, dedicated = true)
@ExtendWith(OutputCaptureExtension.class)
class JedisClusterPrewarmerIntegrationTests {

	private static final String APP = "slotwise-prewarm-it";

	@Test
	void anUnreachableNodeGivesOneWarningNamingItAndTheOthersAreWarmed(RedisTestCluster cluster,
			CapturedOutput output) {
		List<RedisNode> masters = cluster.masters();
		ConnectionPoolConfig pool = new ConnectionPoolConfig();
		pool.setMinIdle(3);
		pool.setMaxTotal(8);
		try (RedisClusterClient client = RedisClusterClient.builder()
			.nodes(Set.of(new HostAndPort(masters.get(0).host(), masters.get(0).port())))
			.clientConfig(DefaultJedisClientConfig.builder().clientName(APP).build())
			.poolConfig(pool)
			.build()) {
			RedisNode down = masters.get(2);
			cluster.kill(down);
			try {
				PrewarmResult result = JedisClusterPrewarmer.prewarm(client,
						masters.stream().map((node) -> new RedisClusterNode(node.host(), node.port())).toList(), 3);

				assertThat(result.warmed()).containsExactly(masters.get(0).address(), masters.get(1).address());
				assertThat(result.failed()).containsOnlyKeys(down.address());
				assertThat(cluster.countClients(masters.get(0), APP)).isGreaterThanOrEqualTo(3);
				assertThat(cluster.countClients(masters.get(1), APP)).isGreaterThanOrEqualTo(3);
				assertThat(output)
					.containsOnlyOnce("Could not pre-warm the connection pool of Redis node " + down.address());
			}
			finally {
				cluster.restart(down);
				cluster.awaitHealthy();
			}
		}
	}

	@Test
	void aNodeTheClientDoesNotKnowGivesOneWarningNamingIt(RedisTestCluster cluster, CapturedOutput output) {
		RedisNode seed = cluster.masters().get(0);
		try (RedisClusterClient client = RedisClusterClient.builder()
			.nodes(Set.of(new HostAndPort(seed.host(), seed.port())))
			.build()) {
			PrewarmResult result = JedisClusterPrewarmer.prewarm(client, List.of(new RedisClusterNode("127.0.0.1", 1)),
					3);

			assertThat(result.warmed()).isEmpty();
			assertThat(result.failed()).containsOnlyKeys("127.0.0.1:1");
			assertThat(output).containsOnlyOnce("Could not pre-warm the connection pool of Redis node 127.0.0.1:1");
		}
	}

}
