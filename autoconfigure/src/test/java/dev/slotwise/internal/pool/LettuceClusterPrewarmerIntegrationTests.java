package dev.slotwise.internal.pool;

import java.util.List;
import java.util.stream.Collectors;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lettuce pre-warm (shared connection and pool) with a master that cannot be reached:
 * start-up goes on, one warning names the node although every pooled connection tried it,
 * and the other masters are warmed. A cluster of its own, because a node is killed.
 */
@WithRedisCluster(masters = 3, replicasPerMaster = 0, dedicated = true)
@ExtendWith(OutputCaptureExtension.class)
class LettuceClusterPrewarmerIntegrationTests {

	private static final String APP = "slotwise-lettuce-prewarm-it";

	@Test
	void anUnreachableMasterGivesOneWarningNamingItAndTheOthersAreWarmed(RedisTestCluster cluster,
			CapturedOutput output) {
		List<RedisNode> masters = cluster.masters();
		RedisNode down = masters.get(2);
		List<RedisNode> up = masters.subList(0, 2);
		cluster.kill(down);
		try {
			new ApplicationContextRunner()
				.withConfiguration(
						AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
				.withPropertyValues("spring.data.redis.client-type=lettuce", "spring.data.redis.client-name=" + APP,
						"spring.data.redis.cluster.nodes="
								+ up.stream().map(RedisNode::address).collect(Collectors.joining(",")))
				.run((context) -> {
					assertThat(context).hasNotFailed();
					for (RedisNode master : up) {
						// The shared connection's node connection; Lettuce's pool
						// (min-idle 0, as Spring Boot's) stays empty until the
						// application borrows from it.
						assertThat(cluster.countClients(master, APP)).as("app connections on %s", master)
							.isBetween(1L, 2L);
					}
					assertThat(output)
						.containsOnlyOnce("Could not pre-warm the connection to Redis node " + down.address());
				});
		}
		finally {
			cluster.restart(down);
			cluster.awaitHealthy();
		}
	}

}
