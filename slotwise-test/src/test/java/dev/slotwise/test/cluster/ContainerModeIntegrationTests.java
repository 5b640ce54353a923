package dev.slotwise.test.cluster;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @WithRedisCluster(container = true)}: the nodes run in a Docker container. Where
 * no Docker engine answers, the class is skipped with that reason (the extension's
 * execution condition), not failed.
 */
@WithRedisCluster(masters = 3, replicasPerMaster = 0, container = true)
class ContainerModeIntegrationTests {

	@Test
	void formsAClusterInAContainer(RedisTestCluster cluster) {
		assertThat(cluster.masters()).hasSize(3);
		assertThat(cluster.withAdmin(cluster.nodes().get(0), Jedis::clusterInfo)).contains("cluster_state:ok");
	}

}
