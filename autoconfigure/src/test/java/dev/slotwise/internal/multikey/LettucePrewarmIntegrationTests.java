package dev.slotwise.internal.multikey;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Over Lettuce, the connections pre-warm opens are the ones the first requests use,
 * counted on the servers ({@code CLIENT LIST} by the application's client name):
 * single-key commands (Lettuce's own slot routing), cross-slot calls (the engine) and,
 * when reads go to replicas, replica reads open no connection on any node. Lettuce keeps
 * node connections by host and port for slot routing and by node id for commands
 * addressed to a node: warming the latter left every first request to connect.
 */
@WithRedisCluster
class LettucePrewarmIntegrationTests {

	@ParameterizedTest
	@ValueSource(strings = { "upstream", "replica" })
	void firstRequestsOpenNoConnection(String readFrom, RedisTestCluster cluster) {
		cluster.reset();
		MultiKeyTestSupport.runner("lettuce", cluster)
			.withPropertyValues("spring.data.redis.lettuce.read-from=" + readFrom)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Map<RedisNode, Long> warmed = connectionsPerNode(cluster);
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				Map<String, String> values = new LinkedHashMap<>();
				for (int i = 0; i < 300; i++) {
					values.put("warm:" + i, "v" + i);
				}
				List<String> keys = new ArrayList<>(values.keySet());
				template.opsForValue().multiSet(values);
				for (String key : keys.subList(0, 30)) {
					template.opsForValue().get(key);
				}
				assertThat(template.opsForValue().multiGet(keys)).hasSize(keys.size());
				assertThat(template.delete(keys)).isEqualTo(keys.size());
				assertThat(connectionsPerNode(cluster)).as("connections per node, before: %s", warmed)
					.isEqualTo(warmed);
				if (readFrom.equals("replica")) {
					assertThat(cluster.replicas())
						.allSatisfy((replica) -> assertThat(warmed.get(replica)).isPositive());
				}
				assertThat(cluster.masters()).allSatisfy((master) -> assertThat(warmed.get(master)).isPositive());
			});
	}

	private static Map<RedisNode, Long> connectionsPerNode(RedisTestCluster cluster) {
		Map<RedisNode, Long> connections = new LinkedHashMap<>();
		for (RedisNode node : cluster.nodes()) {
			connections.put(node, cluster.countClients(node, MultiKeyTestSupport.CLIENT_NAME));
		}
		return connections;
	}

}
