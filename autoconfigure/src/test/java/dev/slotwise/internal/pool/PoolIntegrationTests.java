package dev.slotwise.internal.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tuned Jedis pool against a real cluster, judged by what the servers report:
 * commands counted by {@code INFO commandstats}, connections by {@code CLIENT LIST}.
 */
@WithRedisCluster
class PoolIntegrationTests {

	private static final String APP = "slotwise-pool-it";

	private static final int GETS = 10_000;

	private static final int THREADS = 8;

	private ApplicationContextRunner runner;

	@BeforeEach
	void prepare(RedisTestCluster cluster) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=jedis", "spring.data.redis.client-name=" + APP,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty());
	}

	@Test
	void getsUnderLoadSendNoValidationPing(RedisTestCluster cluster) {
		this.runner.run((context) -> {
			runGetsFromCleanStats(context.getBean(StringRedisTemplate.class), cluster);
			// Counted on the masters, which serve every GET: replicas also count the PING
			// their master sends down the replication stream every 10 s.
			assertThat(cluster.masters().stream().mapToLong((master) -> cluster.commandCalls(master, "ping")).sum())
				.isZero();
		});
	}

	@Test
	void getsUnderLoadWithValidateOnBorrowAndReturnSendTwoPingsPerGet(RedisTestCluster cluster) {
		this.runner.withPropertyValues("slotwise.pool.test-on-borrow=true", "slotwise.pool.test-on-return=true")
			.run((context) -> {
				runGetsFromCleanStats(context.getBean(StringRedisTemplate.class), cluster);
				// One PING on borrow and one on return per GET; the evictor (30s period)
				// adds none this quickly.
				assertThat(cluster.totalCommandCalls("ping")).isBetween(2L * GETS, 2L * GETS + 50);
			});
	}

	@Test
	void everyMasterHoldsMinIdleConnectionsRightAfterStart(RedisTestCluster cluster) {
		this.runner.run((context) -> {
			for (RedisNode master : cluster.masters()) {
				assertThat(cluster.countClients(master, APP)).as("app connections on %s", master)
					.isGreaterThanOrEqualTo(4);
			}
		});
	}

	@Test
	void withoutPrewarmMastersDoNotHoldMinIdleConnectionsAfterStart(RedisTestCluster cluster) {
		this.runner.withPropertyValues("slotwise.pool.prewarm=false").run((context) -> {
			long total = cluster.masters().stream().mapToLong((master) -> cluster.countClients(master, APP)).sum();
			assertThat(total).isLessThan(3L * 4);
		});
	}

	@Test
	void lettuceConnectsToEveryMasterBeforeStartCompletes(RedisTestCluster cluster) {
		this.runner.withPropertyValues("spring.data.redis.client-type=lettuce").run((context) -> {
			assertThat(context).hasNotFailed();
			for (RedisNode master : cluster.masters()) {
				assertThat(cluster.countClients(master, APP)).as("app connections on %s", master).isPositive();
			}
		});
	}

	@Test
	void lettucePoolStaysEmptyByDefaultAsWithSpringBoot(RedisTestCluster cluster) {
		// Spring Boot pools Lettuce's dedicated connections because the starter brings
		// commons-pool2; nothing borrows from that pool unless the application runs
		// blocking commands or transactions.
		this.runner.withPropertyValues("spring.data.redis.client-type=lettuce").run((context) -> {
			assertThat(context).hasNotFailed();
			for (RedisNode master : cluster.masters()) {
				// The shared connection's link to the master, and perhaps its default
				// connection to a seed node.
				assertThat(cluster.countClients(master, APP)).as("app connections on %s", master).isBetween(1L, 2L);
			}
		});
	}

	@Test
	void lettucePoolHoldsAnExplicitMinIdleToEveryMasterRightAfterStart(RedisTestCluster cluster) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=lettuce", "spring.data.redis.lettuce.pool.min-idle=2")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				for (RedisNode master : cluster.masters()) {
					// min-idle (2) pooled cluster connections, each connected to the
					// master, plus the shared one.
					assertThat(cluster.countClients(master, APP)).as("app connections on %s", master)
						.isGreaterThanOrEqualTo(2 + 1);
				}
			});
	}

	@Test
	void lettuceWithoutPoolWarmsOnlyTheSharedConnection(RedisTestCluster cluster) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=lettuce", "spring.data.redis.lettuce.pool.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				for (RedisNode master : cluster.masters()) {
					// The shared connection's link to the master, and perhaps its default
					// connection to a seed node.
					assertThat(cluster.countClients(master, APP)).as("app connections on %s", master).isBetween(1L, 2L);
				}
			});
	}

	@Test
	void lettuceWithoutPrewarmHoldsNoMasterConnectionAfterStart(RedisTestCluster cluster) {
		this.runner.withPropertyValues("spring.data.redis.client-type=lettuce", "slotwise.pool.prewarm=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				long total = cluster.masters().stream().mapToLong((master) -> cluster.countClients(master, APP)).sum();
				assertThat(total).isZero();
			});
	}

	@Test
	void operationsSucceedAfterEveryAppConnectionOnANodeIsKilled(RedisTestCluster cluster) {
		// More idle connections than Jedis makes attempts (5), so retrying alone cannot
		// get past them.
		this.runner.withPropertyValues("spring.data.redis.jedis.pool.min-idle=12").run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			RedisNode victim = cluster.masters().get(0);
			List<String> keys = keysServedBy(cluster, victim, 50);
			keys.forEach((key) -> template.opsForValue().set(key, key));
			assertThat(cluster.killClients(victim, APP)).isGreaterThanOrEqualTo(12);
			for (String key : keys) {
				assertThat(template.opsForValue().get(key)).isEqualTo(key);
			}
		});
	}

	@Test
	void closingTheContextClosesEveryAppConnection(RedisTestCluster cluster) {
		this.runner.run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.opsForValue().set("pool-key", "v");
			runGets(template);
			assertThat(appConnections(cluster)).isPositive();
		});
		// Closing a socket is asynchronous on the server side; give it a moment before
		// counting.
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (appConnections(cluster) > 0 && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(appConnections(cluster)).isZero();
	}

	private static void runGetsFromCleanStats(StringRedisTemplate template, RedisTestCluster cluster) throws Exception {
		template.opsForValue().set("pool-key", "v");
		cluster.resetStats();
		runGets(template);
		assertThat(cluster.totalCommandCalls("get")).isEqualTo(GETS);
	}

	private static long appConnections(RedisTestCluster cluster) {
		return cluster.nodes().stream().mapToLong((node) -> cluster.countClients(node, APP)).sum();
	}

	private static List<String> keysServedBy(RedisTestCluster cluster, RedisNode node, int count) {
		List<String> keys = new ArrayList<>();
		for (int i = 0; keys.size() < count; i++) {
			String key = "victim-" + i;
			if (cluster.masterServing(key).equals(node)) {
				keys.add(key);
			}
		}
		return keys;
	}

	private static void runGets(StringRedisTemplate template) throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(THREADS);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				futures.add(threads.submit(() -> {
					for (int i = 0; i < GETS / THREADS; i++) {
						assertThat(template.opsForValue().get("pool-key")).isEqualTo("v");
					}
				}));
			}
			for (Future<?> future : futures) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
		}
	}

}
