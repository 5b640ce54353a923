package dev.slotwise.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import dev.slotwise.multikey.MultiKeyFailure;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.ClusterCommandExecutionFailureException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same failure of a cross-slot call, with Slotwise off and on in the same test, both
 * contexts open at once against the same cluster: a server error reply ({@code OOM} on a
 * full master), a stalled master ({@code CLIENT
 * PAUSE} beyond the command timeout) and a killed master. Slotwise throws the type Spring
 * Data Redis translates the client's own exception to, and names the nodes and slots
 * ({@link MultiKeyFailure}).
 * <p>
 * Where plain Spring Boot wraps per-node failures of a Jedis cross-slot read in a
 * {@link ClusterCommandExecutionFailureException}, the type compared is that of the
 * wrapped, translated failure. Plain Jedis reports a read timeout as a connection failure
 * (Jedis's {@code JedisConnectionException}); Slotwise reports it as
 * {@link QueryTimeoutException}, as Spring Data Redis does for Lettuce: the one intended
 * difference (docs/differences.md).
 */
@WithRedisCluster(dedicated = true)
class ExceptionParityIntegrationTests {

	private static final int KEYS = 60;

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void sameFailureSameTypeOnAndOff(String client, RedisTestCluster cluster) {
		cluster.awaitHealthy();
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "spring.data.redis.timeout=1s",
					"spring.data.redis.client-name=parity-exceptions");
		Map<String, String> table = new LinkedHashMap<>();
		try {
			compare(client, cluster, runner, table);
		}
		finally {
			System.out.println("exception parity (" + client + "), plain Spring Boot | Slotwise:");
			table.forEach((scenario, types) -> System.out.println("  " + scenario + ": " + types));
		}
	}

	private void compare(String client, RedisTestCluster cluster, ApplicationContextRunner runner,
			Map<String, String> table) {
		runner.withPropertyValues("slotwise.enabled=false").run((plainContext) -> runner.run((slotwiseContext) -> {
			StringRedisTemplate plain = plainContext.getBean(StringRedisTemplate.class);
			StringRedisTemplate slotwise = slotwiseContext.getBean(StringRedisTemplate.class);
			Map<String, String> entries = new LinkedHashMap<>();
			for (int i = 0; i < KEYS; i++) {
				entries.put("parity:" + i, "v" + i);
			}
			List<String> keys = new ArrayList<>(entries.keySet());
			plain.opsForValue().multiSet(entries);
			assertThat(slotwise.opsForValue().multiGet(keys)).isEqualTo(plain.opsForValue().multiGet(keys));
			RedisNode master = cluster.masterServing("parity:0");

			// A server error reply: a full master refuses writes.
			cluster.withAdmin(master, (jedis) -> jedis.configSet("maxmemory-policy", "noeviction"));
			cluster.withAdmin(master, (jedis) -> jedis.configSet("maxmemory", "1"));
			Failure[] errorReply;
			try {
				errorReply = both(plain, slotwise, (template) -> {
					template.opsForValue().multiSet(entries);
					return null;
				});
			}
			finally {
				cluster.withAdmin(master, (jedis) -> jedis.configSet("maxmemory", "0"));
			}
			table.put("error reply (OOM)", errorReply[0] + " | " + errorReply[1]);
			Class<?> expected = "jedis".equals(client) ? InvalidDataAccessApiUsageException.class
					: RedisSystemException.class;
			assertThat(errorReply[0].translated()).as(errorReply[0].toString()).isInstanceOf(expected);
			assertThat(errorReply[1].thrown()).isInstanceOf(expected).isInstanceOf(MultiKeyFailure.class);
			assertThat(((MultiKeyFailure) errorReply[1].thrown()).getNodes()).contains(master.address());

			// A stalled master: no reply within the command timeout.
			cluster.withAdmin(master, (jedis) -> jedis.clientPause(2500));
			long pausedAt = System.nanoTime();
			Failure[] timeout = both(plain, slotwise, (template) -> template.opsForValue().multiGet(keys));
			sleepUntil(pausedAt, 2700);
			table.put("stalled master (CLIENT PAUSE)", timeout[0] + " | " + timeout[1]);
			assertThat(timeout[1].thrown()).isInstanceOf(QueryTimeoutException.class)
				.isInstanceOf(MultiKeyFailure.class);
			if (!(timeout[0].thrown() instanceof NoAnswer)) {
				assertThat(timeout[0].translated()).isInstanceOf(
						"jedis".equals(client) ? RedisConnectionFailureException.class : QueryTimeoutException.class);
			}

			// A killed master: its connections break, new ones are refused.
			cluster.kill(master);
			try {
				Failure[] killed = both(plain, slotwise, (template) -> template.opsForValue().multiGet(keys));
				table.put("killed master", killed[0] + " | " + killed[1]);
				assertThat(killed[1].thrown()).isInstanceOf(MultiKeyFailure.class);
				if ("jedis".equals(client)) {
					// Plain Spring Boot wraps the refused connect in Jedis's "Could not
					// get a resource from the pool", which Spring Data translates to
					// InvalidDataAccessApiUsageException; Slotwise reports the connection
					// failure itself.
					assertThat(killed[1].thrown()).isInstanceOf(RedisConnectionFailureException.class);
				}
				else if (!(killed[0].thrown() instanceof NoAnswer)) {
					assertThat(killed[1].thrown()).isInstanceOf(killed[0].translated().getClass());
				}
			}
			finally {
				cluster.restart(master);
				cluster.awaitHealthy();
			}
		}));
	}

	/**
	 * Runs the same call on both templates at once (so both meet the failure in the same
	 * state) and returns how each failed.
	 */
	private static Failure[] both(StringRedisTemplate plain, StringRedisTemplate slotwise,
			Function<StringRedisTemplate, Object> call) {
		CompletableFuture<Failure> off = CompletableFuture.supplyAsync(() -> failure(plain, call));
		CompletableFuture<Failure> on = CompletableFuture.supplyAsync(() -> failure(slotwise, call));
		Failure slotwiseFailure = on.join();
		try {
			// Plain Spring Boot's Jedis cross-slot read may never return (key tasks wait
			// forever for a connection of the stalled master's pool, max-wait -1):
			// bounded here, and reported as such.
			return new Failure[] { off.get(15, TimeUnit.SECONDS), slotwiseFailure };
		}
		catch (TimeoutException ex) {
			return new Failure[] { new Failure(new NoAnswer("no answer within 15 s")), slotwiseFailure };
		}
		catch (InterruptedException | ExecutionException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static Failure failure(StringRedisTemplate template, Function<StringRedisTemplate, Object> call) {
		try {
			call.apply(template);
		}
		catch (RuntimeException ex) {
			return new Failure(ex);
		}
		return new Failure(new NoAnswer("the call succeeded"));
	}

	private static void sleepUntil(long since, long millis) {
		long left = millis - (System.nanoTime() - since) / 1_000_000;
		if (left > 0) {
			try {
				Thread.sleep(left);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Stands for a call that did not fail: it succeeded, or neither returned nor failed
	 * in time.
	 */
	static final class NoAnswer extends RuntimeException {

		NoAnswer(String what) {
			super(what);
		}

	}

	/**
	 * How a call failed.
	 *
	 * @param thrown what the call threw
	 */
	record Failure(RuntimeException thrown) {

		/**
		 * Returns the translated failure: the thrown exception, or the first one Spring
		 * Data Redis's cluster executor wrapped in a
		 * {@link ClusterCommandExecutionFailureException}.
		 */
		RuntimeException translated() {
			if (this.thrown instanceof ClusterCommandExecutionFailureException wrapper
					&& wrapper.getCause() instanceof RuntimeException first) {
				return first;
			}
			return this.thrown;
		}

		@Override
		public String toString() {
			if (this.thrown instanceof NoAnswer) {
				return this.thrown.getMessage();
			}
			String type = this.thrown.getClass().getSimpleName();
			Throwable root = org.springframework.core.NestedExceptionUtils.getMostSpecificCause(this.thrown);
			String described = (translated() != this.thrown)
					? type + "[" + translated().getClass().getSimpleName() + "]" : type;
			return described + " (root: " + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
		}

	}

}
