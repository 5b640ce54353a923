package dev.slotwise.test.cluster;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The Testcontainers path of {@link RedisTestCluster}, used where no {@code redis-server}
 * is installed. It needs a Docker engine, so it is the one test that skips (saying why)
 * where none answers; the real-cluster tests never depend on it.
 */
class DockerLauncherIntegrationTests {

	@Test
	void formsAClusterInsideOneContainer() {
		assumeTrue(DockerLauncher.isAvailable(),
				"No Docker engine answered, so the Testcontainers fallback of RedisTestCluster cannot run here; "
						+ "the local redis-server path covers every other test");
		try (RedisTestCluster cluster = RedisTestCluster.start(new ClusterShape(3, 0), new DockerLauncher())) {
			assertThat(cluster.masters()).hasSize(3);
			String info = cluster.withAdmin(cluster.nodes().get(0), Jedis::clusterInfo);
			assertThat(info).contains("cluster_state:ok");
		}
	}

}
