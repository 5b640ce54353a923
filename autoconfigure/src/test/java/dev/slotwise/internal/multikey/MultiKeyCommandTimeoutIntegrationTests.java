package dev.slotwise.internal.multikey;

import dev.slotwise.multikey.MultiKeyTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A stalled node fails a multi-key call no later than the application's own command
 * timeout ({@code spring.data.redis.timeout}) would fail a single command, even with
 * {@code slotwise.multikey.timeout} left at its longer default.
 */
@WithRedisCluster
class MultiKeyCommandTimeoutIntegrationTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * How long the masters stall: past the command timeout, short of the engine's own
	 * default (5 s).
	 */
	private static final long PAUSE_MILLIS = 4000;

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void stalledNodesFailTheCallWithinTheCommandTimeout(String client, RedisTestCluster cluster) {
		byte[][] keys = new byte[300][];
		for (int i = 0; i < keys.length; i++) {
			keys[i] = ("ct:" + i).getBytes(StandardCharsets.UTF_8);
		}
		MultiKeyCommandsIntegrationTests.withConnection(
				MultiKeyTestSupport.runner(client, cluster)
					.withPropertyValues("spring.data.redis.timeout=" + COMMAND_TIMEOUT.toMillis() + "ms"),
				(connection) -> {
					connection.stringCommands().mGet(keys);
					for (RedisNode master : cluster.masters()) {
						cluster.withAdmin(master, (jedis) -> jedis.clientPause(PAUSE_MILLIS));
					}
					long start = System.nanoTime();
					try {
						assertThatExceptionOfType(MultiKeyTimeoutException.class)
							.isThrownBy(() -> connection.stringCommands().mGet(keys))
							.withMessageContaining("timed out after " + COMMAND_TIMEOUT.toMillis() + " ms");
						// The command timeout plus scheduling margin; the engine's own
						// default (5 s) would outlast the pause and return values
						// instead.
						assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(2500));
					}
					finally {
						long left = PAUSE_MILLIS + 200 - (System.nanoTime() - start) / 1_000_000;
						if (left > 0) {
							try {
								Thread.sleep(left);
							}
							catch (InterruptedException ex) {
								Thread.currentThread().interrupt();
							}
						}
					}
				});
	}

}
