package dev.slotwise.connection;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.protocol.CommandExpiryWriter;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.lettuce.core.protocol.RedisCommand;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The late write over Lettuce (issue #21), on a real cluster: a SET that timed out while
 * its master was down must not be applied after a later acknowledged SET of the same key.
 * <p>
 * Plain Spring Boot's behaviour, shown in the same test: Spring Data's timeout cancels
 * the caller's command, but the wrapper Lettuce routes it in stays "not done" in the down
 * node's reconnect buffer (its own timeout timer was cancelled with the caller's
 * command); when the node is back, the wrapper is written, answered with {@code MOVED}
 * and applied on the node that took over. With Slotwise the cancelled command leaves the
 * buffer unwritten.
 */
@WithRedisCluster(dedicated = true)
class LettuceLateWriteIntegrationTests {

	private static final int TIMED_OUT_WRITES = 3;

	@Test
	void aSetThatTimedOutWhileItsMasterWasDownIsNeverAppliedLater(RedisTestCluster cluster) {
		Outcome plain = run(cluster, false);
		Outcome slotwise = run(cluster, true);
		System.out.println("[late-write] plain Boot: " + plain + "; Slotwise: " + slotwise);
		// Plain Spring Boot keeps the timed-out SETs, cancelled yet not done, buffered
		// for the node's return, and writes them when it is back: the node that took over
		// executes SETs nobody sent after the restart...
		assertThat(plain.bufferedNotDone()).isGreaterThanOrEqualTo(TIMED_OUT_WRITES);
		assertThat(plain.setsAfterRestart()).isPositive();
		// ...Slotwise keeps none of them, writes none after the restart, and the
		// acknowledged value stays.
		assertThat(slotwise.bufferedNotDone()).isZero();
		assertThat(slotwise.setsAfterRestart()).isZero();
		assertThat(slotwise.finalValue()).isEqualTo(slotwise.acknowledged());
	}

	private Outcome run(RedisTestCluster cluster, boolean slotwise) {
		List<Outcome> outcome = new ArrayList<>();
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=lettuce", "slotwise.enabled=" + slotwise,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(),
					"spring.data.redis.client-name=late-write", "spring.data.redis.timeout=1s",
					"spring.data.redis.connect-timeout=1s", "spring.data.redis.lettuce.cluster.refresh.adaptive=true",
					"slotwise.multikey.timeout=1s")
			.run((context) -> {
				cluster.awaitHealthy();
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				String key = "late-write:" + slotwise;
				template.opsForValue().set(key, "before");
				RedisNode master = cluster.masterServing(key);
				cluster.awaitReplicated(master, Duration.ofSeconds(10));
				List<RedisNode> replicas = cluster.replicasOf(master);
				String otherKey = IntStream.range(0, 1000)
					.mapToObj((i) -> "late-write-other:" + i)
					.filter((candidate) -> !cluster.masterServing(candidate).equals(master))
					.findFirst()
					.orElseThrow();
				try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class)
					.getClusterConnection()) {
					StatefulRedisConnection<?, ?> node = ((RedisAdvancedClusterAsyncCommands<?, ?>) connection
						.getNativeConnection()).getStatefulConnection().getConnection(master.host(), master.port());
					cluster.kill(master);
					for (int i = 0; i < TIMED_OUT_WRITES; i++) {
						String value = "timed-out-" + i;
						assertThatExceptionOfType(QueryTimeoutException.class)
							.isThrownBy(() -> template.opsForValue().set(key, value));
					}
					// A cross-slot multiSet with one key on the down master: the
					// multi-key engine with Slotwise, Lettuce's per-slot split without
					// it. Its part for the down master must not stay writable either.
					Map<String, String> both = new LinkedHashMap<>();
					both.put(key, "multi-set");
					both.put(otherKey, "multi-set");
					assertThatExceptionOfType(RuntimeException.class)
						.isThrownBy(() -> template.opsForValue().multiSet(both));
					int bufferedNotDone = (int) buffered(node).stream().filter((command) -> !command.isDone()).count();
					await(() -> replicas.stream().anyMatch(cluster::isMaster), Duration.ofSeconds(30));
					RedisNode promoted = replicas.stream().filter(cluster::isMaster).findFirst().orElseThrow();
					// Until the application follows the failover its SETs time out too
					// (and are buffered the same way): each attempt writes its own value,
					// so the one acknowledged is told apart.
					String[] acknowledged = new String[1];
					int[] attempt = new int[1];
					await(() -> {
						String attempted = "after-failover-" + (++attempt[0]);
						try {
							template.opsForValue().set(key, attempted);
							acknowledged[0] = attempted;
							return true;
						}
						catch (RuntimeException ex) {
							return false;
						}
					}, Duration.ofSeconds(30));
					cluster.resetStats();
					cluster.restart(master);
					// Lettuce reconnects with a growing back-off: wait until the node
					// connection is back, then a little.
					await(node::isOpen, Duration.ofSeconds(60));
					sleep(1500);
					long setsAfterRestart = cluster.commandCalls(promoted, "set");
					String value = template.opsForValue().get(key);
					outcome.add(new Outcome(bufferedNotDone, setsAfterRestart, acknowledged[0], value));
					cluster.awaitHealthy();
				}
			});
		return outcome.get(0);
	}

	/**
	 * The commands Lettuce's endpoint for one node holds while that node is disconnected.
	 */
	private static Collection<RedisCommand<?, ?, ?>> buffered(StatefulRedisConnection<?, ?> node) throws Exception {
		RedisChannelWriter writer = ((RedisChannelHandler<?, ?>) node).getChannelWriter();
		if (writer instanceof CommandExpiryWriter expiry) {
			writer = expiry.getDelegate();
		}
		Field buffer = DefaultEndpoint.class.getDeclaredField("disconnectedBuffer");
		buffer.setAccessible(true);
		@SuppressWarnings("unchecked")
		Collection<RedisCommand<?, ?, ?>> commands = (Collection<RedisCommand<?, ?, ?>>) buffer.get(writer);
		return List.copyOf(commands);
	}

	private static void await(java.util.function.BooleanSupplier condition, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime()).as("waited %s", timeout).isLessThan(deadline);
			sleep(50);
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * What one run showed.
	 *
	 * @param bufferedNotDone timed-out commands (the SETs, the multiSet's part) still
	 * waiting, not done, in the down node's buffer
	 * @param setsAfterRestart SETs the node that took over executed once the old master
	 * was back (none was sent)
	 * @param acknowledged the last value whose SET was acknowledged
	 * @param finalValue the key's value at the end
	 */
	record Outcome(int bufferedNotDone, long setsAfterRestart, String acknowledged, String finalValue) {
	}

}
