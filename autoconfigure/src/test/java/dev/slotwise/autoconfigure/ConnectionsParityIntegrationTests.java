package dev.slotwise.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The connections each node sees ({@code CLIENT LIST} by client name) for the same small
 * workload, one cross-slot {@code multiGet} and one {@code multiSet}, with Slotwise off
 * and on, one after the other on the same cluster.
 * <p>
 * Over Lettuce, Slotwise opens what its engine and the application use: the shared
 * connection's node connections, which plain Spring Boot opens too on the first
 * cross-slot call; Lettuce's pool stays as empty as Spring Boot leaves it. Over Jedis,
 * Slotwise keeps {@code min-idle} (4) connections per node ready, replicas included only
 * when the multi-key engine reads from them, where plain Spring Boot opens one per
 * concurrent key task: the counts are printed and written in docs/differences.md.
 */
@WithRedisCluster
class ConnectionsParityIntegrationTests {

	private static final String NAME = "parity-connections";

	private static final Set<String> TOPOLOGY_COMMANDS = Set.of("cluster|nodes", "cluster|myid", "cluster|slots",
			"cluster|shards", "info", "hello", "auth", "client|setname", "client|setinfo", "ping", "command");

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void connectionsPerNodeOnAndOff(String client, RedisTestCluster cluster) {
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(),
					"spring.data.redis.client-name=" + NAME);
		Map<RedisNode, Long> plain = connections(runner.withPropertyValues("slotwise.enabled=false"), cluster,
				new LinkedHashMap<>());
		Map<RedisNode, Long> slotwiseRefreshes = new LinkedHashMap<>();
		Map<RedisNode, Long> slotwise = connections(runner, cluster, slotwiseRefreshes);
		System.out.printf("connections per node (%s), masters then replicas: plain Spring Boot %s, Slotwise %s%n",
				client, plain.values(), slotwise.values());
		long plainTotal = plain.values().stream().mapToLong(Long::longValue).sum();
		long slotwiseTotal = slotwise.values().stream().mapToLong(Long::longValue).sum();
		if ("lettuce".equals(client)) {
			// The engine writes on the shared connection's node connections: one per
			// master, as plain Boot's cross-slot call opens (plus the connection each
			// side keeps for its topology and default node).
			assertThat(slotwiseTotal).as("Slotwise's connections over Lettuce, plain Boot's: %d", plainTotal)
				.isLessThanOrEqualTo(plainTotal + cluster.masters().size());
			// A replica may hold Slotwise's topology refresh, which asks replicas first
			// (slotwise.topology.prefer-replicas) and may be open when the clients are
			// counted (seen under load); no other connection of Slotwise's may be there.
			for (RedisNode replica : cluster.replicas()) {
				assertThat(slotwise.get(replica) - slotwiseRefreshes.get(replica))
					.as("replica %s: Slotwise's connections there %s, of which %s topology queries", replica,
							slotwise.get(replica), slotwiseRefreshes.get(replica))
					.isLessThanOrEqualTo(plain.get(replica));
			}
		}
		else {
			int minIdle = ClientPoolProperties.DEFAULT_MIN_IDLE;
			for (RedisNode master : cluster.masters()) {
				assertThat(slotwise.get(master)).as("master %s", master).isBetween((long) minIdle, (long) minIdle + 2);
			}
		}
	}

	/**
	 * Counts the application's connections per node while it runs.
	 * @param refreshes filled with the connections per node whose last command was a
	 * topology query or a connection's set-up
	 */
	private static Map<RedisNode, Long> connections(ApplicationContextRunner runner, RedisTestCluster cluster,
			Map<RedisNode, Long> refreshes) {
		Map<RedisNode, Long> counts = new LinkedHashMap<>();
		runner.run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			Map<String, String> entries = new LinkedHashMap<>();
			for (int i = 0; i < 50; i++) {
				entries.put("connections:" + i, "v");
			}
			template.opsForValue().multiSet(entries);
			assertThat(template.opsForValue().multiGet(new ArrayList<>(entries.keySet()))).hasSize(50);
			List<RedisNode> nodes = new ArrayList<>(cluster.masters());
			nodes.addAll(cluster.replicas());
			for (RedisNode node : nodes) {
				List<Map<String, String>> clients = cluster.clients(node)
					.stream()
					.filter((client) -> NAME.equals(client.get("name")))
					.toList();
				counts.put(node, (long) clients.size());
				refreshes.put(node,
						clients.stream().filter((client) -> TOPOLOGY_COMMANDS.contains(client.get("cmd"))).count());
			}
		});
		return counts;
	}

}
