package dev.slotwise.internal.topology;

import java.time.Duration;
import java.util.List;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Lettuce refresh that finds a change after which every slot has a live master (a
 * failover that completed) is followed by the back-off's first quiet step, not by another
 * refresh one minimum interval later (issue 19: in a fleet's outage, the calls routed
 * before the change, the periodic refresh and reconnect attempts to the failed node each
 * asked again within a second or two and found nothing new). Counted on the servers, on a
 * real failover ({@code CLUSTER FAILOVER TAKEOVER}).
 */
@WithRedisCluster(dedicated = true)
class LettuceSettledChangeIntegrationTests {

	private static final Duration INTERVAL = Duration.ofSeconds(1);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.client-type=lettuce", "slotwise.pool.prewarm=false",
				"slotwise.topology.periodic-refresh=0", "slotwise.topology.refresh-sources=1",
				"slotwise.topology.cache-ttl=60s",
				"slotwise.topology.min-refresh-interval=" + INTERVAL.toMillis() + "ms");

	@Test
	void aChangeThatLeavesEverySlotServedStartsTheQuietBackOff(RedisTestCluster cluster) {
		this.runner.withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.nodesProperty()).run((context) -> {
			SlotwiseLettuceConnectionFactory factory = context.getBean(SlotwiseLettuceConnectionFactory.class);
			factory.getClusterConnection().close();
			RedisClusterClient client = (RedisClusterClient) factory.getRequiredNativeClient();
			RedisNode master = cluster.masters().get(0);
			RedisNode replica = cluster.replicasOf(master).get(0);
			long beforeTheChange = System.nanoTime();
			cluster.takeOver(replica);
			cluster.awaitSeenAsMasterByAll(replica);
			// The pacer's interval since the client's first load has passed: this refresh
			// runs and finds the change.
			Thread.sleep(INTERVAL.toMillis() + 100);
			client.refreshPartitionsAsync().toCompletableFuture().join();
			long found = System.nanoTime();
			assertThat(LettuceTopology.changedSince(client, beforeTheChange)).as("the refresh found the promotion")
				.isTrue();
			assertThat(PartitionViews.settled(client.getPartitions())).isTrue();
			cluster.resetStats();
			// From just after one interval to 1.6 intervals after the change: the pacer
			// alone lets one refresh start.
			sleepUntil(found + INTERVAL.toNanos() + Duration.ofMillis(50).toNanos());
			while (System.nanoTime() - (found + INTERVAL.toNanos() * 16 / 10) < 0) {
				client.refreshPartitionsAsync().toCompletableFuture().join();
				Thread.sleep(10);
			}
			assertThat(cluster.totalCommandCalls("cluster|nodes")).as("CLUSTER NODES within 1.6 s of a settled change")
				.isZero();
			// After the first quiet step (two intervals) refreshes start again.
			sleepUntil(found + 2 * INTERVAL.toNanos() + Duration.ofMillis(100).toNanos());
			client.refreshPartitionsAsync().toCompletableFuture().join();
			assertThat(cluster.totalCommandCalls("cluster|nodes")).isEqualTo(1);
		});
	}

	@Test
	void aFailoverUnderWayIsNotSettled(RedisTestCluster cluster) {
		// A master flagged fail that still owns its slots: the promotion is still to
		// come, and worth seeing at once.
		Partitions partitions = ClusterPartitionParser.parse(String.join("\n",
				List.of("a 127.0.0.1:7000@17000 master,fail - 0 0 1 connected 0-8191",
						"b 127.0.0.1:7001@17001 master - 0 0 2 connected 8192-16383",
						"c 127.0.0.1:7002@17002 slave a 0 0 1 connected")));
		assertThat(PartitionViews.settled(partitions)).isFalse();
		Partitions promoted = ClusterPartitionParser.parse(String.join("\n",
				List.of("a 127.0.0.1:7000@17000 master,fail - 0 0 1 connected",
						"b 127.0.0.1:7001@17001 master - 0 0 2 connected 8192-16383",
						"c 127.0.0.1:7002@17002 master - 0 0 3 connected 0-8191")));
		assertThat(PartitionViews.settled(promoted)).isTrue();
	}

	private static void sleepUntil(long nanos) throws InterruptedException {
		long left = nanos - System.nanoTime();
		if (left > 0) {
			Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
		}
	}

}
