package dev.slotwise.internal.topology;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cluster whose nodes announce the hostname {@code localhost} and prefer it as their
 * endpoint ({@code cluster-preferred-endpoint-type hostname}), reached through
 * {@code localhost:port} seeds: pre-warm reaches every master, the topology knows every
 * master, and every multi-key path returns the right values, on both clients.
 */
@ExtendWith(OutputCaptureExtension.class)
class HostnameEndpointsIntegrationTests {

	private static final String CLIENT_NAME = "slotwise-hostname-test";

	private static RedisTestCluster cluster;

	@BeforeAll
	static void startCluster() {
		cluster = RedisTestCluster.startAnnouncingHostname(ClusterShape.DEFAULT, "localhost");
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void everySlotwisePathWorksWithHostnameEndpoints(String client, CapturedOutput output) {
		assertThat(cluster.nodesProperty()).startsWith("localhost:");
		assertThat(cluster.clusterNodes(cluster.nodes().get(0)))
			.allSatisfy((line) -> assertThat(line).contains(",localhost"));
		List<RedisNode> masters = cluster.masters();
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(),
					"spring.data.redis.client-name=" + CLIENT_NAME, "spring.data.redis.timeout=2s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				// Pre-warm: connections to every master before the first call, and no
				// warning.
				assertThat(output.getAll()).doesNotContain("Could not pre-warm");
				for (RedisNode master : masters) {
					assertThat(cluster.countClients(master, CLIENT_NAME)).as("connections on %s", master).isPositive();
				}
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				Map<String, String> values = new LinkedHashMap<>();
				IntStream.range(0, 300).forEach((i) -> values.put("host:" + client + ":" + i, "v" + i));
				List<String> keys = List.copyOf(values.keySet());
				template.opsForValue().multiSet(values);
				assertThat(template.opsForValue().multiGet(keys)).containsExactlyElementsOf(values.values());
				assertThat(template.countExistingKeys(keys)).isEqualTo(keys.size());
				assertThat(template.delete(keys)).isEqualTo(keys.size());
				assertThat(template.opsForValue().multiGet(keys)).containsOnlyNulls();
				// The engine served them: cross-slot MGET per slot, never one GET per
				// key.
				assertThat(cluster.totalCommandCalls("get")).isZero();
				assertThat(context.getBean(RedisConnectionFactory.class).getClusterConnection().clusterGetNodes())
					.filteredOn((node) -> node.isMaster())
					.hasSize(masters.size());
				// A command Spring Data Redis sends to every master through the factory's
				// node connections.
				template.opsForValue().set("host:" + client + ":one", "1");
				assertThat(template.keys("host:" + client + ":*")).containsExactly("host:" + client + ":one");
			});
	}

}
