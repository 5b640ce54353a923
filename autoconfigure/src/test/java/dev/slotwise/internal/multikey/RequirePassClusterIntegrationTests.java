package dev.slotwise.internal.multikey;

import java.util.List;
import java.util.Map;

import dev.slotwise.test.cluster.ClusterSecurity;
import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A cluster whose default user needs a password ({@code requirepass}), and an application
 * that gives it ({@code spring.data.redis.password}): everything
 * {@link SecuredClusterScenario} checks, on both clients.
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

	/**
	 * A wrong password fails start-up (Jedis: the slot cache cannot be loaded) or the
	 * first call (Lettuce: start-up goes on after a pre-warm warning) with an error whose
	 * message names the refusal, and the failed application does not keep knocking: over
	 * the next 10 s the nodes receive no more connections than there are nodes.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void wrongPasswordFailsNamingAuthenticationWithBoundedConnections(String client) {
		cluster.resetStats();
		long before = SecuredClusterScenario.connectionsReceived(cluster);
		int nodes = cluster.nodes().size();
		SecuredClusterScenario.runner(client, cluster, "spring.data.redis.password=not-the-password").run((context) -> {
			Throwable failure = context.getStartupFailure();
			if (failure == null) {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				failure = catchThrowable(() -> template.opsForValue().multiGet(List.of("a", "b", "c")));
			}
			assertThat(failure).as("start-up or the first call fails").isNotNull();
			assertThat(messages(failure)).as("the failure and its causes").contains("WRONGPASS");
			long failed = SecuredClusterScenario.connectionsReceived(cluster);
			assertThat(failed - before).as("connections until the failure").isLessThanOrEqualTo(2L * nodes);
			// The measurement window: what a failed application does on its own
			// (reconnects, refreshes, evictor refills) while nobody calls it.
			Thread.sleep(10_000);
			assertThat(SecuredClusterScenario.connectionsReceived(cluster) - failed)
				.as("connections received in the 10 s after the failure")
				.isLessThanOrEqualTo(nodes);
		});
		// The servers saw the refusal and nothing else went wrong.
		long refusals = 0;
		for (RedisNode node : cluster.nodes()) {
			Map<String, Long> errors = SecuredClusterScenario.errorstats(cluster, node);
			assertThat(errors.keySet()).as("errors on %s", node).isSubsetOf("WRONGPASS");
			refusals += errors.getOrDefault("WRONGPASS", 0L);
		}
		assertThat(refusals).isPositive();
	}

	/**
	 * The messages of a throwable and of its causes (not the suppressed ones, which
	 * reports often leave out).
	 */
	private static String messages(Throwable failure) {
		StringBuilder messages = new StringBuilder();
		for (Throwable current = failure; current != null; current = current.getCause()) {
			messages.append(current.getMessage()).append(System.lineSeparator());
		}
		return messages.toString();
	}

}
