package dev.slotwise.internal.multikey;

import dev.slotwise.test.cluster.ClusterSecurity;
import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisTestCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A cluster with the default user switched off ({@code user default off}) and an ACL user
 * with a password, and an application that logs in as that user
 * ({@code spring.data.redis.username}, {@code spring.data.redis.password}): everything
 * {@link SecuredClusterScenario} checks, on both clients. A connection that skipped
 * authentication anywhere (pre-warm, engine, topology refresh, the ASK connection) would
 * meet {@code NOAUTH}.
 */
class AclUserClusterIntegrationTests {

	private static final String USER = "slotwise-app";

	private static final String PASSWORD = "slotwise-app-secret";

	private static RedisTestCluster cluster;

	@BeforeAll
	static void start() {
		cluster = RedisTestCluster.startSecured(ClusterShape.DEFAULT, ClusterSecurity.aclUser(USER, PASSWORD));
	}

	@AfterAll
	static void stop() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void applicationAsAclUserIsServedFully(String client) {
		SecuredClusterScenario.run(client, cluster, "spring.data.redis.username=" + USER,
				"spring.data.redis.password=" + PASSWORD);
	}

}
