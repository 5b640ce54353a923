package dev.slotwise.internal.health;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.autoconfigure.SlotwiseHealthAutoConfiguration;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.health.DataRedisHealthContributorAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A master that stops answering turns the cluster's health {@code DOWN} within one round
 * of probes, naming it, and {@code UP} again once it is back. Three masters without
 * replicas, so that nothing fails over; dedicated because a node is stopped.
 */
@WithRedisCluster(masters = 3, replicasPerMaster = 0, dedicated = true)
class ClusterHealthIndicatorFailureIntegrationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class,
				SlotwiseHealthAutoConfiguration.class, DataRedisHealthContributorAutoConfiguration.class));

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void downWhileAMasterDoesNotAnswerAndUpWhenItIsBack(String client, RedisTestCluster cluster) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "spring.data.redis.timeout=500ms",
					"spring.data.redis.connect-timeout=500ms")
			.run((context) -> {
				HealthIndicator indicator = context.getBean("redisHealthContributor", HealthIndicator.class);
				assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
				RedisNode victim = cluster.masters().get(1);
				cluster.kill(victim);
				Health down;
				try {
					// Three checks probe every master once.
					down = firstWith(Status.DOWN, indicator::health, 3);
				}
				finally {
					cluster.restart(victim);
				}
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat(down.getDetails().get("unreachableMasters").toString()).contains(victim.address());
				cluster.awaitHealthy();
				Health up = firstWith(Status.UP, indicator::health, 100);
				assertThat(up.getStatus()).isEqualTo(Status.UP);
				assertThat(up.getDetails()).containsEntry("slotsCovered", 16384);
			});
	}

	private static Health firstWith(Status status, Supplier<Health> check, int attempts) throws InterruptedException {
		Health health = check.get();
		for (int i = 1; i < attempts && !health.getStatus().equals(status); i++) {
			TimeUnit.MILLISECONDS.sleep(100);
			health = check.get();
		}
		return health;
	}

}
