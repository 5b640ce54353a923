package dev.slotwise.internal.pool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Over Jedis, Slotwise keeps min-idle connections open only to the nodes that serve
 * requests: the masters at start-up, the promoted replica after a failover, and no longer
 * the master it replaced. Jedis holds a pool per node, replicas included; before, the
 * evictor filled every one of them to min-idle, so an application's connections grew with
 * every failover (the 30-minute soak: 16 at the start, 34 at the end). Counted on the
 * servers ({@code CLIENT LIST}), with plain Spring Boot in the same test for the
 * difference.
 * <p>
 * Fails without the fix: the replicas then hold min-idle connections after the first
 * evictor run, and the demoted master keeps its idle ones.
 */
@WithRedisCluster(masters = 3, replicasPerMaster = 1, dedicated = true)
class JedisServingPoolsIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@Test
	void idleConnectionsAreKeptOnlyToTheNodesThatServe(RedisTestCluster cluster) {
		String slotwise = "serving-pools-slotwise";
		String plain = "serving-pools-plain";
		runner(cluster, slotwise, true).run((on) -> runner(cluster, plain, false).run((off) -> {
			assertThat(on).hasNotFailed();
			assertThat(off).hasNotFailed();
			StringRedisTemplate onTemplate = on.getBean(StringRedisTemplate.class);
			StringRedisTemplate offTemplate = off.getBean(StringRedisTemplate.class);
			traffic(onTemplate, offTemplate);

			// Start-up: min-idle (4) on each master, nothing kept open to a replica,
			// evictor runs included.
			List<RedisNode> masters = cluster.masters();
			await("4 idle connections on every master and none on a replica", () -> {
				traffic(onTemplate, offTemplate);
				return masters.stream().allMatch((master) -> cluster.countClients(master, slotwise) >= 4)
						&& cluster.replicas()
							.stream()
							.allMatch((replica) -> cluster.countClients(replica, slotwise) == 0);
			}, () -> counts(cluster, slotwise));

			// A failover: the promoted replica is warmed, the demoted master's idle
			// connections close.
			RedisNode demoted = masters.get(0);
			RedisNode promoted = cluster.replicasOf(demoted).get(0);
			cluster.takeOver(promoted);
			await(promoted + " to be master", () -> cluster.isMaster(promoted) && !cluster.isMaster(demoted), () -> "");
			await("4 connections on the promoted replica and none on the demoted master", () -> {
				traffic(onTemplate, offTemplate);
				return cluster.countClients(promoted, slotwise) >= 4 && cluster.countClients(demoted, slotwise) == 0;
			}, () -> counts(cluster, slotwise));

			// Plain Spring Boot never closes the idle connections it opened to the
			// demoted master (no min-idle, no soft-min eviction): the difference is
			// Slotwise's release, never more connections than plain Boot.
			assertThat(cluster.countClients(demoted, plain)).isPositive();
		}));
	}

	private static ApplicationContextRunner runner(RedisTestCluster cluster, String clientName, boolean slotwise) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=jedis",
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(),
					"spring.data.redis.client-name=" + clientName, "slotwise.enabled=" + slotwise,
					// Quick evictor runs and idle expiry, so that the test sees in
					// seconds what takes a minute.
					"spring.data.redis.jedis.pool.time-between-eviction-runs=200ms",
					"slotwise.pool.soft-min-evictable-idle-time=300ms");
	}

	/**
	 * Single-key writes and reads that reach every master on both applications, and a
	 * cross-slot read on Slotwise's (plain Spring Data Redis's cross-slot read over Jedis
	 * does not follow a failover's MOVED until its own topology cache expires: its
	 * failures would be plain Boot's, not what this test is about).
	 */
	private static void traffic(StringRedisTemplate slotwise, StringRedisTemplate plain) {
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			keys.add("serving-pools:" + i);
		}
		for (StringRedisTemplate template : List.of(slotwise, plain)) {
			for (String key : keys) {
				template.opsForValue().set(key, "v");
				assertThat(template.opsForValue().get(key)).isEqualTo("v");
			}
		}
		assertThat(slotwise.opsForValue().multiGet(keys)).containsOnly("v");
	}

	private static String counts(RedisTestCluster cluster, String clientName) {
		StringBuilder counts = new StringBuilder();
		for (RedisNode node : cluster.nodes()) {
			counts.append(node)
				.append(cluster.isMaster(node) ? " (master) " : " (replica) ")
				.append(cluster.countClients(node, clientName))
				.append("; ");
		}
		return counts.toString();
	}

	private static void await(String what, BooleanSupplier condition, Supplier<String> state) {
		long deadline = System.nanoTime() + WAIT.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Timed out waiting for " + what + ": " + state.get());
			}
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError(ex);
			}
		}
	}

}
