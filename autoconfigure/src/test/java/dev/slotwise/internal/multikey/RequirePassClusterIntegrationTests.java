package dev.slotwise.internal.multikey;

import dev.slotwise.test.cluster.ClusterSecurity;
import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisTestCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A cluster whose default user needs a password ({@code requirepass}), and an application that gives it
 * ({@code spring.data.redis.password}): everything {@link SecuredClusterScenario} checks, on both clients.
 */
class RequirePassClusterIntegrationTests {

	static final String PASSWORD = "slotwise-requirepass-secret";

	private static RedisTestCluster cluster;

	@BeforeAll
	static void start() {
		cluster = RedisTestCluster.startSecured(ClusterShape.DEFAULT, ClusterSecurity.requirePass(PASSWORD));
	}

	@AfterAll
	static void stop() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void applicationWithThePasswordIsServedFully(String client) {
		SecuredClusterScenario.run(client, cluster, "spring.data.redis.password=" + PASSWORD);
	}

}
