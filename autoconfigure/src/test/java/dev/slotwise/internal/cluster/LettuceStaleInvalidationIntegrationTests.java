package dev.slotwise.internal.cluster;

import java.time.Duration;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.internal.topology.LettuceTopology;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A multi-key call over Lettuce that was routed before the client applied a topology
 * change, and fails or is redirected after it, asks for no refresh: the change explains
 * what it saw (issue 19: in a fleet's outage, the calls in flight when the failover was
 * found timed out just after it and each instance refreshed once more for nothing). A
 * call routed after the change still asks. Counted on the servers, around a real failover
 * ({@code CLUSTER FAILOVER TAKEOVER}).
 */
@WithRedisCluster(dedicated = true)
class LettuceStaleInvalidationIntegrationTests {

	private static final Duration INTERVAL = Duration.ofMillis(200);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.client-type=lettuce", "slotwise.pool.prewarm=false",
				"slotwise.topology.periodic-refresh=0", "slotwise.topology.refresh-sources=1",
				"slotwise.topology.cache-ttl=60s",
				"slotwise.topology.min-refresh-interval=" + INTERVAL.toMillis() + "ms");

	@Test
	void aCallRoutedBeforeAnAppliedChangeAsksForNoRefresh(RedisTestCluster cluster) {
		this.runner.withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.nodesProperty()).run((context) -> {
			SlotwiseLettuceConnectionFactory factory = context.getBean(SlotwiseLettuceConnectionFactory.class);
			factory.getClusterConnection().close();
			RedisClusterClient client = (RedisClusterClient) factory.getRequiredNativeClient();
			LettucePartitionRefresher refresher = new LettucePartitionRefresher(factory, INTERVAL);
			RedisNode master = cluster.masters().get(0);
			RedisNode replica = cluster.replicasOf(master).get(0);
			long routedBefore = System.nanoTime();
			cluster.takeOver(replica);
			cluster.awaitSeenAsMasterByAll(replica);
			Thread.sleep(INTERVAL.toMillis() + 50);
			client.refreshPartitionsAsync().toCompletableFuture().join();
			assertThat(LettuceTopology.changedSince(client, routedBefore)).as("the refresh found the promotion")
				.isTrue();
			// Past the quiet step that follows a settled change (two intervals): only the
			// call's age can stop it.
			Thread.sleep(3 * INTERVAL.toMillis());
			cluster.resetStats();
			refresher.refresh(routedBefore);
			Thread.sleep(INTERVAL.toMillis());
			assertThat(cluster.totalCommandCalls("cluster|nodes"))
				.as("CLUSTER NODES for a call routed before the change")
				.isZero();
			refresher.refresh(System.nanoTime());
			long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
			while (cluster.totalCommandCalls("cluster|nodes") == 0 && System.nanoTime() < deadline) {
				Thread.sleep(20);
			}
			assertThat(cluster.totalCommandCalls("cluster|nodes")).as("CLUSTER NODES for a call routed after it")
				.isEqualTo(1);
		});
	}

}
