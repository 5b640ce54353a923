package dev.slotwise.internal.pool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.test.cluster.StandaloneRedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Start-up while the cluster cannot be used: nothing listens at the configured nodes, the
 * node is a Redis without cluster mode, or the password is wrong. Over Lettuce the
 * context starts with one pre-warm WARN and the first command fails naming the cause;
 * over Jedis, whose cluster client reads the slot table in its constructor, the outcome
 * is exactly Spring Boot's without Slotwise. In every case the servers receive few
 * connections in the 10 s that follow (no retry storm).
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupWithoutClusterIntegrationTests {

	private static final String PREWARM_WARNING = "Could not pre-warm";

	/**
	 * Connections a server may receive in 10 s from one application that is not using it.
	 */
	private static final long CONNECTION_BOUND = 10;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.timeout=1s", "spring.data.redis.connect-timeout=1s");

	@Test
	void lettuceStartsWithTheClusterDownAndTheFirstCallNamesTheNodes(CapturedOutput output) {
		String nodes = "127.0.0.1:" + StandaloneRedisServer.freePort() + ",127.0.0.1:"
				+ StandaloneRedisServer.freePort();
		this.runner
			.withPropertyValues("spring.data.redis.client-type=lettuce", "spring.data.redis.cluster.nodes=" + nodes)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(warnings(output)).hasSize(1);
				Throwable failure = firstCall(context);
				assertThat(failure).isInstanceOf(DataAccessException.class);
				assertThat(messages(failure)).contains(nodes.split(",")[0]);
			});
	}

	@Test
	void lettuceStartsAgainstANonClusterRedisAndTheFirstCallSaysSo(CapturedOutput output) {
		try (StandaloneRedisServer server = StandaloneRedisServer.start(null)) {
			this.runner
				.withPropertyValues("spring.data.redis.client-type=lettuce",
						"spring.data.redis.cluster.nodes=" + server.address())
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(warnings(output)).hasSize(1);
					assertThat(warnings(output).get(0)).contains("cluster support disabled");
					Throwable failure = firstCall(context);
					assertThat(failure).isInstanceOf(DataAccessException.class);
					assertThat(messages(failure)).contains("cluster support disabled");
					Thread.sleep(10_000);
					assertThat(server.connectionsReceived()).isLessThanOrEqualTo(CONNECTION_BOUND);
				});
		}
	}

	@Test
	void lettuceStartsWithAWrongPasswordAndTheFirstCallSaysSo(CapturedOutput output) {
		try (StandaloneRedisServer server = StandaloneRedisServer.start("right-password")) {
			this.runner.withPropertyValues("spring.data.redis.client-type=lettuce",
					"spring.data.redis.cluster.nodes=" + server.address(), "spring.data.redis.password=wrong-password")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(warnings(output)).hasSize(1);
					Throwable failure = firstCall(context);
					assertThat(failure).isInstanceOf(DataAccessException.class);
					// Lettuce 7.5 sometimes loses the server's reply in a handshake race
					// under load ("RedisHandshakeHandler not registered", with or without
					// Slotwise); the next call then names it.
					if (!messages(failure).contains("WRONGPASS") && !messages(failure).contains("invalid password")) {
						assertThat(messages(failure)).contains("RedisHandshakeHandler not registered");
						failure = firstCall(context);
						assertThat(failure).isInstanceOf(DataAccessException.class);
					}
					assertThat(messages(failure)).containsAnyOf("WRONGPASS", "invalid password");
					Thread.sleep(10_000);
					assertThat(server.connectionsReceived()).isLessThanOrEqualTo(CONNECTION_BOUND);
				});
		}
	}

	@Test
	void jedisBehavesAsSpringBootWithTheClusterDown() {
		String nodes = "127.0.0.1:" + StandaloneRedisServer.freePort();
		assertSameAsSpringBoot("spring.data.redis.cluster.nodes=" + nodes);
	}

	@Test
	void jedisBehavesAsSpringBootAgainstANonClusterRedis() {
		try (StandaloneRedisServer server = StandaloneRedisServer.start(null)) {
			assertSameAsSpringBoot("spring.data.redis.cluster.nodes=" + server.address());
			assertThat(server.connectionsReceived()).isLessThanOrEqualTo(CONNECTION_BOUND);
		}
	}

	@Test
	void jedisBehavesAsSpringBootWithAWrongPassword() {
		try (StandaloneRedisServer server = StandaloneRedisServer.start("right-password")) {
			assertSameAsSpringBoot("spring.data.redis.cluster.nodes=" + server.address(),
					"spring.data.redis.password=wrong-password");
			assertThat(server.connectionsReceived()).isLessThanOrEqualTo(CONNECTION_BOUND);
		}
	}

	/**
	 * Starts the context with and without Slotwise; both must fail alike (same root
	 * cause) or both start and fail their first call alike.
	 */
	private void assertSameAsSpringBoot(String... properties) {
		ApplicationContextRunner jedis = this.runner.withPropertyValues("spring.data.redis.client-type=jedis")
			.withPropertyValues(properties);
		String[] withSlotwise = new String[1];
		String[] withoutSlotwise = new String[1];
		jedis.run((context) -> withSlotwise[0] = outcome(context));
		jedis.withPropertyValues("slotwise.enabled=false").run((context) -> withoutSlotwise[0] = outcome(context));
		assertThat(withSlotwise[0]).isEqualTo(withoutSlotwise[0]);
	}

	private static String outcome(AssertableApplicationContext context) {
		Throwable startup = context.getStartupFailure();
		if (startup != null) {
			return "start-up failed: " + root(startup);
		}
		return "started; first call failed: " + root(firstCall(context));
	}

	private static String root(Throwable failure) {
		Throwable root = failure;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		return root.getClass().getName() + ": " + root.getMessage();
	}

	private static Throwable firstCall(AssertableApplicationContext context) {
		long start = System.nanoTime();
		Throwable failure = catchThrowable(() -> context.getBean(StringRedisTemplate.class).opsForValue().get("k"));
		assertThat(failure).as("the first call fails").isNotNull();
		// Connect (1 s) and command (1 s) timeouts bound it; no hidden retries.
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		return failure;
	}

	private static String messages(Throwable failure) {
		List<String> messages = new ArrayList<>();
		collect(failure, messages, 0);
		return String.join(" / ", messages);
	}

	private static void collect(Throwable failure, List<String> messages, int depth) {
		for (Throwable cause = failure; cause != null
				&& depth < 20; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			messages.add(cause.getMessage());
			for (Throwable suppressed : cause.getSuppressed()) {
				collect(suppressed, messages, depth + 1);
			}
			depth++;
		}
	}

	private static List<String> warnings(CapturedOutput output) {
		return output.getAll().lines().filter((line) -> line.contains(PREWARM_WARNING)).toList();
	}

}
