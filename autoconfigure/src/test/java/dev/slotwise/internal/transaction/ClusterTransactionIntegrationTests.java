package dev.slotwise.internal.transaction;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.internal.metrics.TransactionMeters;
import dev.slotwise.internal.multikey.jedis.MultiKeyExecutor;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.StandaloneRedisServer;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Transactions on a real cluster, over both clients, with Slotwise on and off in the same
 * test: results equal to a standalone Redis running the same {@link SessionCallback}s,
 * Spring Data Redis's refusal when off, cross-slot keys refused before the server sees
 * them, {@code WATCH} under contention, Spring-managed transactions (commit and
 * rollback), the shared Lettuce connection never in {@code MULTI}, and scripts whose keys
 * span slots.
 */
@WithRedisCluster
class ClusterTransactionIntegrationTests {

	private static final String REFUSAL = "MULTI is currently not supported in cluster mode";

	private static final String RELEASE_CLIENT = "slotwise-tx-release";

	private static StandaloneRedisServer standalone;

	@BeforeAll
	static void startStandalone() {
		standalone = StandaloneRedisServer.start(null);
	}

	@AfterAll
	static void stopStandalone() {
		standalone.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void sessionCallbacksReturnWhatStandaloneRedisReturnsAndPlainBootRefuses(String client, RedisTestCluster cluster) {
		List<String> onStandalone = new ArrayList<>();
		standaloneRunner(client).run((context) -> {
			StringRedisTemplate template = template(context);
			flushStandalone(template);
			scenarios().forEach((scenario) -> onStandalone.add(outcome(template, scenario)));
		});
		clusterRunner(client, cluster).run((context) -> {
			StringRedisTemplate template = template(context);
			List<String> onCluster = new ArrayList<>();
			scenarios().forEach((scenario) -> onCluster.add(outcome(template, scenario)));
			assertThat(onCluster).isEqualTo(onStandalone);
			// Real results, not refusals: converted values, an empty transaction, a
			// discard, a WATCH conflict.
			assertThat(onCluster.get(0)).startsWith("[true, 1, 6, false, 1, true, {f=v}, 2, [x, y]");
			assertThat(onCluster.subList(1, 4)).containsExactly("[]", "null", "[]");
		});
		for (String off : List.of("slotwise.enabled=false", "slotwise.transactions.enabled=false")) {
			clusterRunner(client, cluster).withPropertyValues(off).run((context) -> {
				StringRedisTemplate template = template(context);
				assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
					.isThrownBy(() -> template.execute(scenarios().get(0)))
					.withMessageContaining(REFUSAL);
			});
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void keysOfAnotherSlotAreRefusedBeforeTheServerSeesThem(String client, RedisTestCluster cluster) {
		clusterRunner(client, cluster).run((context) -> {
			StringRedisTemplate template = template(context);
			cluster.resetStats();
			// A first command whose keys span slots: nothing at all is sent.
			assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
				.isThrownBy(() -> template.execute(session((ops) -> {
					ops.multi();
					ops.opsForValue().multiSet(Map.of("{a}x", "1", "{b}y", "2"));
					return ops.exec();
				})))
				.withMessageContaining("slot " + cluster.keySlot("{a}x".getBytes()))
				.withMessageContaining("slot " + cluster.keySlot("{b}y".getBytes()))
				.withMessageContaining("nothing was sent");
			assertThat(cluster.totalCommandCalls("multi")).isZero();
			assertThat(cluster.totalCommandCalls("mset")).isZero();
			// A later command of another slot: refused, the transaction discarded,
			// nothing applied.
			assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
				.isThrownBy(() -> template.execute(session((ops) -> {
					ops.multi();
					ops.opsForValue().set("{a}x", "1");
					ops.opsForValue().set("{b}y", "2");
					return ops.exec();
				})))
				.withMessageContaining("bound to slot " + cluster.keySlot("{a}x".getBytes()))
				.withMessageContaining("'{b}y' hashes to slot " + cluster.keySlot("{b}y".getBytes()))
				.withMessageContaining("the transaction was discarded, nothing was applied");
			// MULTI went out when the first key bound the transaction (Jedis may still
			// hold it in its output buffer).
			assertThat(cluster.totalCommandCalls("multi")).isLessThanOrEqualTo(1);
			assertThat(cluster.totalCommandCalls("set")).isZero();
			assertThat(cluster.totalCommandCalls("exec")).isZero();
			assertThat(template.hasKey("{a}x")).isFalse();
			// The connection is usable afterwards.
			List<Object> results = template.execute(session((ops) -> {
				ops.multi();
				ops.opsForValue().set("{a}x", "1");
				return ops.exec();
			}));
			assertThat(results).containsExactly(true);
		});
	}

	/**
	 * A transaction ended with its state in doubt destroys its Jedis connection, and the
	 * pool opens the replacement as it takes the broken one back: towards a node that
	 * accepts connections but does not answer, that handshake would hold the caller for a
	 * whole socket timeout. It is done on the executor's releaser thread: held busy here,
	 * the refusal returns with no new connection on the master, which appears once the
	 * releaser is let go.
	 */
	@Test
	void aConnectionDestroyedByATransactionIsReplacedOnTheReleaserThreadNotTheCallers(RedisTestCluster cluster) {
		RedisNode master = cluster.masterServing("{a}x");
		clusterRunner("jedis", cluster).withPropertyValues("spring.data.redis.client-name=" + RELEASE_CLIENT)
			.run((context) -> {
				StringRedisTemplate template = template(context);
				SessionCallback<List<Object>> oneSlot = session((ops) -> {
					ops.multi();
					ops.opsForValue().set("{a}x", "1");
					return ops.exec();
				});
				assertThat(template.execute(oneSlot)).containsExactly(true);
				Set<String> before = releaseClients(cluster, master);
				assertThat(before).as("the transaction's pooled connection").isNotEmpty();
				CountDownLatch releaserHeld = new CountDownLatch(1);
				context.getBean(MultiKeyExecutor.class).releaser().execute(() -> {
					try {
						releaserHeld.await();
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				});
				try {
					// A key of another slot after MULTI: refused, the connection (in
					// MULTI) destroyed.
					assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
						.isThrownBy(() -> template.execute(session((ops) -> {
							ops.multi();
							ops.opsForValue().set("{a}x", "1");
							ops.opsForValue().set("{b}y", "2");
							return ops.exec();
						})))
						.withMessageContaining("the transaction was discarded");
					assertThat(releaseClients(cluster, master)).as("connections opened by the caller")
						.isSubsetOf(before);
				}
				finally {
					releaserHeld.countDown();
				}
				long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
				while (before.containsAll(releaseClients(cluster, master)) && System.nanoTime() < deadline) {
					Thread.sleep(20);
				}
				Set<String> opened = releaseClients(cluster, master);
				opened.removeAll(before);
				assertThat(opened).as("connections opened on the releaser thread").hasSize(1);
				assertThat(template.execute(oneSlot)).containsExactly(true);
			});
	}

	private static Set<String> releaseClients(RedisTestCluster cluster, RedisNode node) {
		return cluster.clients(node)
			.stream()
			.filter((fields) -> RELEASE_CLIENT.equals(fields.get("name")))
			.map((fields) -> fields.get("id"))
			.collect(Collectors.toCollection(TreeSet::new));
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void watchGuardedIncrementsFromEightThreadsLoseNoUpdate(String client, RedisTestCluster cluster) {
		clusterRunner(client, cluster).run((context) -> {
			SimpleMeterRegistry registry = new SimpleMeterRegistry();
			context.getBean(TransactionMeters.class).bindTo(registry);
			StringRedisTemplate template = template(context);
			template.opsForValue().set("{counter}value", "0");
			AtomicInteger committed = new AtomicInteger();
			AtomicInteger conflicts = new AtomicInteger();
			ExecutorService threads = Executors.newFixedThreadPool(8);
			try {
				List<Future<?>> done = new ArrayList<>();
				for (int t = 0; t < 8; t++) {
					done.add(threads.submit(() -> {
						for (int i = 0; i < 40; i++) {
							List<Object> results = template.execute(session((ops) -> {
								ops.watch("{counter}value");
								long value = Long.parseLong(ops.opsForValue().get("{counter}value"));
								ops.multi();
								ops.opsForValue().set("{counter}value", Long.toString(value + 1));
								return ops.exec();
							}));
							if (results != null && !results.isEmpty()) {
								committed.incrementAndGet();
							}
							else {
								conflicts.incrementAndGet();
							}
						}
					}));
				}
				for (Future<?> future : done) {
					future.get(2, TimeUnit.MINUTES);
				}
			}
			finally {
				threads.shutdownNow();
			}
			assertThat(committed.get() + conflicts.get()).isEqualTo(320);
			assertThat(committed.get()).isPositive();
			assertThat(Long.parseLong(template.opsForValue().get("{counter}value"))).isEqualTo(committed.get());
			assertThat(registry.get(TransactionMeters.TRANSACTIONS)
				.tag("client", client)
				.tag("outcome", "committed")
				.functionCounter()
				.count()).isEqualTo(committed.get());
			assertThat(registry.get(TransactionMeters.TRANSACTIONS)
				.tag("client", client)
				.tag("outcome", "conflict")
				.functionCounter()
				.count()).isEqualTo(conflicts.get());
			assertThat(registry.get(TransactionMeters.COMMANDS).tag("client", client).summary().totalAmount())
				.isEqualTo(320);
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void springManagedTransactionsCommitAndRollBack(String client, RedisTestCluster cluster) {
		clusterRunner(client, cluster).run((context) -> {
			StringRedisTemplate plain = template(context);
			StringRedisTemplate transactional = template(context);
			transactional.setEnableTransactionSupport(true);
			TransactionTemplate transactions = new TransactionTemplate(new NoResourceTransactionManager());
			transactions.executeWithoutResult((status) -> {
				transactional.opsForValue().set("{order:42}:total", "99");
				transactional.opsForList().rightPush("{order:42}:items", "book");
				// Queued, not applied, until the commit.
				assertThat(exists(cluster, "{order:42}:total")).isFalse();
			});
			assertThat(plain.opsForValue().get("{order:42}:total")).isEqualTo("99");
			assertThat(plain.opsForList().range("{order:42}:items", 0, -1)).containsExactly("book");
			transactions.executeWithoutResult((status) -> {
				transactional.opsForValue().set("{order:43}:total", "1");
				status.setRollbackOnly();
			});
			assertThat(plain.hasKey("{order:43}:total")).isFalse();
			assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
				.isThrownBy(() -> transactions.executeWithoutResult((status) -> {
					transactional.opsForValue().set("{order:44}:total", "1");
					transactional.opsForValue().set("{order:45}:total", "1");
				}))
				.withMessageContaining("bound to slot");
			assertThat(plain.hasKey("{order:44}:total")).isFalse();
			assertThat(plain.hasKey("{order:45}:total")).isFalse();
		});
		clusterRunner(client, cluster).withPropertyValues("slotwise.enabled=false").run((context) -> {
			StringRedisTemplate transactional = template(context);
			transactional.setEnableTransactionSupport(true);
			TransactionTemplate transactions = new TransactionTemplate(new NoResourceTransactionManager());
			assertThatExceptionOfType(DataAccessException.class)
				.isThrownBy(() -> transactions
					.executeWithoutResult((status) -> transactional.opsForValue().set("{order:46}:total", "1")))
				.withMessageContaining(REFUSAL);
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void transactionalMethodsCommitAndRollBack(String client, RedisTestCluster cluster) {
		clusterRunner(client, cluster).withUserConfiguration(TransactionalConfiguration.class).run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			orders.place("50", false);
			assertThat(exists(cluster, "{order:50}:total")).isTrue();
			assertThat(exists(cluster, "{order:50}:items")).isTrue();
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> orders.place("51", true));
			assertThat(exists(cluster, "{order:51}:total")).isFalse();
			assertThat(exists(cluster, "{order:51}:items")).isFalse();
		});
		clusterRunner(client, cluster).withPropertyValues("slotwise.enabled=false")
			.withUserConfiguration(TransactionalConfiguration.class)
			.run((context) -> assertThatExceptionOfType(DataAccessException.class)
				.isThrownBy(() -> context.getBean(OrderService.class).place("52", false))
				.withMessageContaining(REFUSAL));
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce" })
	void theSharedLettuceConnectionNeverCarriesTheTransaction(String client, RedisTestCluster cluster)
			throws InterruptedException {
		clusterRunner(client, cluster).run((context) -> {
			StringRedisTemplate template = template(context);
			template.opsForValue().set("{shared}a", "before");
			RedisNode master = cluster.masterServing("{shared}a");
			SlotwiseLettuceConnectionFactory factory = context.getBean(SlotwiseLettuceConnectionFactory.class);
			StatefulRedisConnection<byte[], byte[]> sharedNode = factory.getOrCreateSharedClusterConnection()
				.getConnection(master.host(), master.port());
			String sharedId = Long.toString(sharedNode.sync().clientId());
			List<Object> results = template.execute(session((ops) -> {
				ops.multi();
				ops.opsForValue().set("{shared}a", "after");
				// While queued: the shared connection answers at once, with the value
				// before the transaction ...
				assertThat(sharedNode.sync().get("{shared}a".getBytes())).isEqualTo("before".getBytes());
				// ... and the one client in MULTI on the master is not it.
				List<Map<String, String>> inMulti = cluster.clients(master)
					.stream()
					.filter((fields) -> !"-1".equals(fields.get("multi")))
					.toList();
				assertThat(inMulti).hasSize(1);
				assertThat(inMulti.get(0).get("id")).isNotEqualTo(sharedId);
				return ops.exec();
			}));
			assertThat(results).containsExactly(true);
			assertThat(template.opsForValue().get("{shared}a")).isEqualTo("after");
		});
		// The transaction's dedicated connection (kept idle for the next one) closes with
		// the factory.
		RedisNode master = cluster.masterServing("{shared}a");
		long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
		while (applicationClients(cluster, master) > 0 && System.nanoTime() < deadline) {
			Thread.sleep(50);
		}
		assertThat(applicationClients(cluster, master)).isZero();
	}

	/**
	 * Connections of the application: neither the test's admin connection nor the
	 * replica's replication link.
	 */
	private static long applicationClients(RedisTestCluster cluster, RedisNode node) {
		return cluster.clients(node)
			.stream()
			.filter((fields) -> !RedisTestCluster.ADMIN_CLIENT_NAME.equals(fields.get("name")))
			.filter((fields) -> !fields.getOrDefault("flags", "").contains("S"))
			.count();
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void scriptsWithKeysInSeveralSlotsAreRefusedBeforeSending(String client, RedisTestCluster cluster) {
		RedisScript<Long> script = RedisScript.of("return redis.call('EXISTS', KEYS[1], KEYS[2])", Long.class);
		clusterRunner(client, cluster).run((context) -> {
			StringRedisTemplate template = template(context);
			cluster.resetStats();
			assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
				.isThrownBy(() -> template.execute(script, List.of("{a}x", "{b}y")))
				.withMessageContaining("A script's keys must hash to one slot")
				.withMessageContaining("nothing was sent");
			assertThat(cluster.totalCommandCalls("evalsha") + cluster.totalCommandCalls("eval")).isZero();
			assertThat(template.execute(script, List.of("{a}x", "{a}y"))).isZero();
		});
		clusterRunner(client, cluster).withPropertyValues("slotwise.enabled=false").run((context) -> {
			StringRedisTemplate template = template(context);
			// Refused too, by the client or by the server (CROSSSLOT), but only as it is
			// sent.
			assertThatExceptionOfType(DataAccessException.class)
				.isThrownBy(() -> template.execute(script, List.of("{a}x", "{b}y")));
		});
	}

	/**
	 * The scenarios compared with standalone Redis: one transaction over most command
	 * groups, an empty one, a discarded one, one whose watched key changed, and one with
	 * a failing command.
	 */
	private static List<SessionCallback<String>> scenarios() {
		return List.of(stringSession((ops) -> {
			ops.multi();
			ops.opsForValue().set("{o}:a", "1");
			ops.opsForValue().increment("{o}:c");
			ops.opsForValue().increment("{o}:c", 5);
			ops.opsForValue().setIfAbsent("{o}:a", "2");
			ops.opsForValue().get("{o}:a");
			ops.opsForHash().put("{o}:h", "f", "v");
			ops.opsForHash().entries("{o}:h");
			ops.opsForList().rightPushAll("{o}:l", "x", "y");
			ops.opsForList().range("{o}:l", 0, -1);
			ops.opsForSet().add("{o}:s", "m");
			ops.opsForSet().isMember("{o}:s", "m");
			ops.opsForZSet().add("{o}:z", "m", 1.5);
			ops.opsForZSet().rangeWithScores("{o}:z", 0, -1);
			ops.expire("{o}:a", Duration.ofSeconds(100));
			ops.hasKey("{o}:a");
			ops.opsForValue().multiGet(List.of("{o}:a", "{o}:missing"));
			ops.delete(List.of("{o}:s", "{o}:z"));
			return ops.exec();
		}), stringSession((ops) -> {
			ops.multi();
			return ops.exec();
		}), stringSession((ops) -> {
			ops.multi();
			ops.opsForValue().set("{o}:discarded", "1");
			ops.discard();
			return ops.opsForValue().get("{o}:discarded");
		}), stringSession((ops) -> {
			ops.watch("{o}:w");
			ops.opsForValue().set("{o}:w", "changed");
			ops.multi();
			ops.opsForValue().set("{o}:w", "mine");
			return ops.exec();
		}), stringSession((ops) -> {
			ops.multi();
			ops.opsForValue().set("{o}:text", "abc");
			ops.opsForValue().increment("{o}:text");
			ops.opsForValue().get("{o}:text");
			return ops.exec();
		}));
	}

	private static String outcome(StringRedisTemplate template, SessionCallback<String> scenario) {
		try {
			return String.valueOf(template.execute(scenario));
		}
		catch (RuntimeException ex) {
			return "threw " + ex.getClass().getName();
		}
	}

	private static SessionCallback<String> stringSession(Function<RedisOperations<String, String>, Object> body) {
		return new SessionCallback<>() {

			@Override
			@SuppressWarnings("unchecked")
			public <K, V> String execute(RedisOperations<K, V> operations) {
				return String.valueOf(body.apply((RedisOperations<String, String>) operations));
			}

		};
	}

	private static <T> SessionCallback<T> session(Function<RedisOperations<String, String>, T> body) {
		return new SessionCallback<>() {

			@Override
			@SuppressWarnings("unchecked")
			public <K, V> T execute(RedisOperations<K, V> operations) {
				return body.apply((RedisOperations<String, String>) operations);
			}

		};
	}

	private static boolean exists(RedisTestCluster cluster, String key) {
		return cluster.withAdmin(cluster.masterServing(key), (jedis) -> jedis.exists(key));
	}

	private static void flushStandalone(StringRedisTemplate template) {
		template.execute((org.springframework.data.redis.core.RedisCallback<Object>) (connection) -> {
			connection.serverCommands().flushAll();
			return null;
		});
	}

	private static StringRedisTemplate template(ApplicationContext context) {
		return new StringRedisTemplate(context.getBean(RedisConnectionFactory.class));
	}

	private static ApplicationContextRunner clusterRunner(String client, RedisTestCluster cluster) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "spring.data.redis.timeout=2s");
	}

	private static ApplicationContextRunner standaloneRunner(String client) {
		String[] address = standalone.address().split(":");
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("slotwise.enabled=false", "spring.data.redis.client-type=" + client,
					"spring.data.redis.host=" + address[0], "spring.data.redis.port=" + address[1],
					"spring.data.redis.timeout=2s");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class TransactionalConfiguration {

		@Bean
		PlatformTransactionManager transactionManager() {
			return new NoResourceTransactionManager();
		}

		@Bean
		OrderService orderService(RedisConnectionFactory connectionFactory) {
			StringRedisTemplate template = new StringRedisTemplate(connectionFactory);
			template.setEnableTransactionSupport(true);
			return new OrderService(template);
		}

	}

	static class OrderService {

		private final StringRedisTemplate template;

		OrderService(StringRedisTemplate template) {
			this.template = template;
		}

		@Transactional
		public void place(String id, boolean fail) {
			this.template.opsForValue().set("{order:" + id + "}:total", "99");
			this.template.opsForList().rightPush("{order:" + id + "}:items", "book");
			if (fail) {
				throw new IllegalStateException("rolled back");
			}
		}

	}

	/**
	 * A transaction manager with no resource of its own: Spring's transaction
	 * synchronization is all the Redis template needs to bind its connection, queue and
	 * commit ({@code EXEC}) or roll back ({@code DISCARD}).
	 */
	@SuppressWarnings("serial")
	static final class NoResourceTransactionManager extends AbstractPlatformTransactionManager {

		@Override
		protected Object doGetTransaction() {
			return new Object();
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
		}

		@Override
		protected void doRollback(DefaultTransactionStatus status) {
		}

	}

}
