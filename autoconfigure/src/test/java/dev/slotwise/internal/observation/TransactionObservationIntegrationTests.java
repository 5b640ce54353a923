package dev.slotwise.internal.observation;

import java.util.List;
import java.util.function.Function;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.autoconfigure.SlotwiseObservationAutoConfiguration;
import dev.slotwise.internal.observation.ObservationParityIntegrationTests.Recorder;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.observation.LettuceObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Each transaction on a cluster is one {@code slotwise.transaction} observation, tagged
 * with its client, outcome and the number of commands it queued, a child of the
 * observation current at {@code multi()}; with Slotwise off, Spring Data Redis refuses
 * the same transactions and nothing of Slotwise is observed.
 */
@WithRedisCluster
class TransactionObservationIntegrationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(SlotwiseAutoConfiguration.class, SlotwiseObservationAutoConfiguration.class,
						DataRedisAutoConfiguration.class, LettuceObservationAutoConfiguration.class))
		.withPropertyValues("slotwise.pool.prewarm=false", "spring.data.redis.timeout=5s");

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void eachTransactionIsObservedWithItsOutcomeAndPlainBootRefusesThemUnobserved(String client,
			RedisTestCluster cluster) {
		RedisNode master = cluster.masterServing("{obs}:a");
		Recorder on = new Recorder();
		run(client, cluster, on, "slotwise.enabled=true", (template, registry) -> {
			cluster.resetStats();
			Observation parent = Observation.start("application", registry);
			try (Observation.Scope scope = parent.openScope()) {
				List<Object> results = template.execute(session((ops) -> {
					ops.multi();
					ops.opsForValue().set("{obs}:a", "1");
					ops.opsForValue().set("{obs}:b", "2");
					ops.opsForValue().increment("{obs}:c");
					return ops.exec();
				}));
				assertThat(results).containsExactly(true, true, 1L);
			}
			parent.stop();
			template.execute(session((ops) -> {
				ops.multi();
				ops.opsForValue().set("{obs}:a", "discarded");
				ops.discard();
				return null;
			}));
			assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
				.isThrownBy(() -> template.execute(session((ops) -> {
					ops.multi();
					ops.opsForValue().set("{obs}:a", "3");
					ops.opsForValue().set("{other}:a", "3");
					return ops.exec();
				})));
			List<Object> conflicting = template.execute(session((ops) -> {
				ops.watch("{obs}:a");
				// Another client changes the watched key: EXEC runs nothing.
				cluster.withAdmin(master, (jedis) -> jedis.set("{obs}:a", "changed"));
				ops.multi();
				ops.opsForValue().set("{obs}:a", "4");
				return ops.exec();
			}));
			assertThat(conflicting).isEmpty();
			List<Observation.Context> transactions = on.await("slotwise.transaction", 4);
			assertThat(transactions).extracting((context) -> context.getLowCardinalityKeyValue("outcome").getValue())
				.containsExactly("committed", "discarded", "refused", "conflict");
			assertThat(transactions).extracting((context) -> context.getLowCardinalityKeyValue("commands").getValue())
				.containsExactly("1-10", "1-10", "1-10", "1-10");
			assertThat(transactions)
				.extracting((context) -> context.getHighCardinalityKeyValue("slotwise.size").getValue())
				.containsExactly("3", "1", "1", "1");
			assertThat(transactions).allSatisfy((context) -> assertThat(context.getLowCardinalityKeyValues()).contains(
					KeyValue.of("client", client), KeyValue.of("command", "transaction"),
					KeyValue.of("db.system", "redis")));
			Observation.Context committed = transactions.get(0);
			assertThat(committed.getParentObservation()).isNotNull();
			assertThat(committed.getParentObservation().getContextView().getName()).isEqualTo("application");
			assertThat(committed.getError()).isNull();
			assertThat(transactions.get(2).getError()).isInstanceOf(InvalidDataAccessApiUsageException.class);
			// What the master ran: the committed and the conflicting transaction's EXEC,
			// the discarded one's DISCARD.
			assertThat(cluster.commandCalls(master, "exec")).isEqualTo(2);
			assertThat(cluster.commandCalls(master, "discard")).isEqualTo(1);
			assertThat(template.opsForValue().get("{obs}:a")).isEqualTo("changed");
		});
		Recorder off = new Recorder();
		run(client, cluster, off, "slotwise.enabled=false", (template, registry) -> {
			cluster.resetStats();
			assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
				.isThrownBy(() -> template.execute(session((ops) -> {
					ops.multi();
					ops.opsForValue().set("{obs}:a", "1");
					return ops.exec();
				})))
				.withMessageContaining("MULTI is currently not supported in cluster mode");
			assertThat(cluster.commandCalls(master, "multi")).isZero();
		});
		// Plain Spring Boot refuses the transaction: the observations are what Slotwise
		// adds.
		assertThat(off.named((name) -> name.startsWith("slotwise"))).isEmpty();
	}

	private void run(String client, RedisTestCluster cluster, Recorder recorder, String property, TemplateTest test) {
		ObservationRegistry registry = recorder.registry();
		this.runner.withBean(ObservationRegistry.class, () -> registry)
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), property)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				test.accept(context.getBean(StringRedisTemplate.class), registry);
			});
	}

	@SuppressWarnings("unchecked")
	private static <T> SessionCallback<T> session(Function<RedisOperations<String, String>, T> body) {
		return new SessionCallback<>() {

			@Override
			public <K, V> T execute(RedisOperations<K, V> operations) throws DataAccessException {
				return body.apply((RedisOperations<String, String>) operations);
			}

		};
	}

	@FunctionalInterface
	private interface TemplateTest {

		void accept(StringRedisTemplate template, ObservationRegistry registry) throws Exception;

	}

}
