package dev.slotwise.internal.health;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.autoconfigure.SlotwiseHealthAutoConfiguration;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.health.DataRedisHealthContributorAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.health.DataRedisReactiveHealthContributorAutoConfiguration;
import org.springframework.boot.data.redis.health.DataRedisHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cluster health indicator on a real cluster of three masters with one replica each:
 * what it reports, what it costs the servers, and when it takes Spring Boot's place.
 */
@WithRedisCluster
class ClusterHealthIndicatorIntegrationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class,
				SlotwiseHealthAutoConfiguration.class, DataRedisHealthContributorAutoConfiguration.class,
				DataRedisReactiveHealthContributorAutoConfiguration.class));

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void upWithEveryNodeFromTheCachedTopology(String client, RedisTestCluster cluster) {
		cluster(client, cluster).run((context) -> {
			HealthIndicator indicator = context.getBean("redisHealthContributor", HealthIndicator.class);
			assertThat(indicator).isInstanceOf(ClusterHealthIndicator.class);
			Health health = indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("slotsCovered", 16384)
				.containsEntry("masters", 3)
				.containsEntry("unreachableMasters", List.of());
			@SuppressWarnings("unchecked")
			Map<String, Map<String, Object>> nodes = (Map<String, Map<String, Object>>) health.getDetails()
				.get("nodes");
			assertThat(nodes).hasSize(6);
			assertThat(nodes.values()).filteredOn((node) -> "master".equals(node.get("role")))
				.hasSize(3)
				.allSatisfy((node) -> assertThat((int) node.get("slots")).isBetween(5461, 5462));
			if (client.equals("jedis")) {
				assertThat(nodes.values()).filteredOn((node) -> "master".equals(node.get("role")))
					.allSatisfy((node) -> assertThat(node).containsKey("pool"));
			}
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void eachCheckSendsOnePingToOneMasterInTurnAndNeverClusterNodes(String client, RedisTestCluster cluster) {
		// A topology cache of 1s, and checks spread over more than twice that: a check
		// never refreshes it.
		cluster(client, cluster).withPropertyValues("slotwise.topology.cache-ttl=1s").run((context) -> {
			HealthIndicator indicator = context.getBean("redisHealthContributor", HealthIndicator.class);
			// One round first: every master's connection is open before the count starts
			// (Lettuce PINGs a node connection it opens).
			for (int i = 0; i < 3; i++) {
				assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
			}
			List<RedisNode> masters = cluster.masters();
			cluster.resetStats();
			int checks = 15;
			for (int i = 0; i < checks; i++) {
				assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
				TimeUnit.MILLISECONDS.sleep(200);
			}
			// Masters only: a replica also counts the PING its master sends down the
			// replication link every 10s.
			for (RedisNode master : masters) {
				assertThat(cluster.commandCalls(master, "ping")).as("PINGs to %s", master).isEqualTo(checks / 3);
			}
			assertThat(cluster.totalCommandCalls("cluster|nodes")).isZero();
			assertThat(cluster.totalCommandCalls("cluster|info")).isZero();
		});
	}

	@Test
	void backsOffWhenTheApplicationDefinesItsOwnRedisHealthIndicator(RedisTestCluster cluster) {
		HealthIndicator own = () -> Health.up().withDetail("own", true).build();
		cluster("jedis", cluster).withBean("redisHealthIndicator", HealthIndicator.class, () -> own).run((context) -> {
			assertThat(context).doesNotHaveBean("redisHealthContributor");
			assertThat(context.getBean("redisHealthIndicator")).isSameAs(own);
		});
	}

	@Test
	void springBootsIndicatorStaysWhenSlotwiseIsOff(RedisTestCluster cluster) {
		cluster("jedis", cluster).withPropertyValues("slotwise.enabled=false")
			.run((context) -> assertThat(context.getBean("redisHealthContributor"))
				.isInstanceOf(DataRedisHealthIndicator.class));
	}

	@Test
	void aStandaloneConnectionIsCheckedAsSpringBootChecksIt(RedisTestCluster cluster) {
		RedisNode node = cluster.nodes().get(0);
		this.runner
			.withPropertyValues("spring.data.redis.client-type=jedis", "spring.data.redis.host=" + node.host(),
					"spring.data.redis.port=" + node.port())
			.run((context) -> {
				Health health = context.getBean("redisHealthContributor", HealthIndicator.class).health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsKey("version");
			});
	}

	private ApplicationContextRunner cluster(String client, RedisTestCluster cluster) {
		return this.runner.withPropertyValues("spring.data.redis.client-type=" + client,
				"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "spring.data.redis.timeout=2s");
	}

}
