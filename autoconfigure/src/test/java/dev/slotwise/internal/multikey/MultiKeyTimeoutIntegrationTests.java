package dev.slotwise.internal.multikey;

import dev.slotwise.multikey.MultiKeyTimeoutException;
import java.nio.charset.StandardCharsets;

import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A call whose nodes stall fails at {@code slotwise.multikey.timeout}, well before the
 * client's own read timeout, including the node batch the calling thread reads itself.
 */
@WithRedisCluster
class MultiKeyTimeoutIntegrationTests {

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void stalledNodesFailTheCallAtTheMultiKeyTimeout(String client, RedisTestCluster cluster) {
		byte[][] keys = new byte[300][];
		for (int i = 0; i < keys.length; i++) {
			keys[i] = ("t:" + i).getBytes(StandardCharsets.UTF_8);
		}
		MultiKeyCommandsIntegrationTests.withConnection(
				MultiKeyTestSupport.runner(client, cluster)
					.withPropertyValues("spring.data.redis.timeout=10s", "slotwise.multikey.timeout=400ms"),
				(connection) -> {
					connection.stringCommands().mGet(keys);
					// Every master stalls, so whichever batch the caller runs itself
					// stalls too.
					for (RedisNode master : cluster.masters()) {
						cluster.withAdmin(master, (jedis) -> jedis.clientPause(2500));
					}
					long start = System.nanoTime();
					try {
						assertThatExceptionOfType(MultiKeyTimeoutException.class)
							.isThrownBy(() -> connection.stringCommands().mGet(keys))
							.satisfies((ex) -> assertThat(ex.getNodes()).isNotEmpty());
						assertThat(System.nanoTime() - start).isLessThan(2_000_000_000L);
					}
					finally {
						sleepUntilUnpaused(start);
					}
				});
	}

	private static void sleepUntilUnpaused(long pausedAt) {
		long left = 2_700_000_000L - (System.nanoTime() - pausedAt);
		if (left > 0) {
			try {
				Thread.sleep(left / 1_000_000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
