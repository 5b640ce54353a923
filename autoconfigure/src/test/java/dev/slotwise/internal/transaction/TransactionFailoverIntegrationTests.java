package dev.slotwise.internal.transaction;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A master killed while 4 threads run transactions that write the same token to two keys
 * of its slot: every transaction commits or fails with a Spring Data Redis exception, no
 * read ever sees the two keys differ (nothing is applied partially, nothing queued is
 * sent again outside {@code MULTI}), and transactions commit again on the promoted
 * replica.
 */
@WithRedisCluster(dedicated = true)
class TransactionFailoverIntegrationTests {

	private static final int WRITERS = 4;

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void noTransactionIsAppliedPartiallyAcrossAMasterFailover(String client, RedisTestCluster cluster)
			throws Exception {
		String a = "{failover-" + client + "}a";
		String b = "{failover-" + client + "}b";
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "spring.data.redis.timeout=1s")
			.run((context) -> {
				StringRedisTemplate template = new StringRedisTemplate(context.getBean(RedisConnectionFactory.class));
				template.opsForValue().set(a, "start");
				template.opsForValue().set(b, "start");
				cluster.awaitHealthy();
				RedisNode victim = cluster.masterServing(a);
				cluster.awaitReplicated(victim, Duration.ofSeconds(10));
				AtomicBoolean stop = new AtomicBoolean();
				AtomicLong committed = new AtomicLong();
				ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
				ConcurrentLinkedQueue<String> differing = new ConcurrentLinkedQueue<>();
				AtomicLong failed = new AtomicLong();
				ExecutorService threads = Executors.newFixedThreadPool(WRITERS + 1);
				for (int t = 0; t < WRITERS; t++) {
					String writer = "w" + t + "-";
					threads.execute(() -> {
						for (long i = 0; !stop.get(); i++) {
							String token = writer + i;
							try {
								List<Object> results = template.execute(session((ops) -> {
									ops.multi();
									ops.opsForValue().set(a, token);
									ops.opsForValue().set(b, token);
									return ops.exec();
								}));
								if (results != null && results.size() == 2) {
									committed.incrementAndGet();
								}
							}
							catch (DataAccessException ex) {
								failed.incrementAndGet();
							}
							catch (Throwable ex) {
								unexpected.add(ex);
							}
						}
					});
				}
				threads.execute(() -> {
					while (!stop.get()) {
						try {
							List<String> values = template.opsForValue().multiGet(List.of(a, b));
							if (values != null && !values.get(0).equals(values.get(1))) {
								differing.add(values.toString());
							}
						}
						catch (DataAccessException ex) {
							// The master is down: reads fail until the replica takes
							// over.
						}
					}
				});
				Thread.sleep(300);
				cluster.kill(victim);
				try {
					awaitFailover(cluster, victim);
					long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
					long before = committed.get();
					while (committed.get() < before + 50 && System.nanoTime() < deadline) {
						Thread.sleep(50);
					}
					stop.set(true);
					threads.shutdown();
					assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
					assertThat(unexpected).isEmpty();
					assertThat(differing).isEmpty();
					assertThat(committed.get()).as("transactions committed after the failover")
						.isGreaterThanOrEqualTo(before + 50);
					List<String> last = template.opsForValue().multiGet(List.of(a, b));
					assertThat(last.get(0)).isEqualTo(last.get(1));
				}
				finally {
					stop.set(true);
					threads.shutdownNow();
					cluster.restart(victim);
					cluster.awaitHealthy();
				}
			});
	}

	private static void awaitFailover(RedisTestCluster cluster, RedisNode victim) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (System.nanoTime() < deadline) {
			try {
				List<RedisNode> masters = cluster.masters();
				if (masters.size() == 3 && !masters.contains(victim)) {
					return;
				}
			}
			catch (RuntimeException ex) {
				// A node is briefly unreachable during the failover; ask again.
			}
			Thread.sleep(100);
		}
		throw new IllegalStateException("No replica took over from " + victim + " within 30s");
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

}
