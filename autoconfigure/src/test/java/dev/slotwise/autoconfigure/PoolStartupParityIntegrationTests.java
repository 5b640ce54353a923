package dev.slotwise.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whatever pool settings plain Spring Boot starts with, Slotwise starts with too: every
 * combination of {@code spring.data.redis.<client>.pool.*} values below runs with
 * {@code slotwise.enabled=false} and with Slotwise, against the real cluster (the
 * factories connect during start-up), and both start or both fail. Where both start and
 * the pool can hand out a connection at all, a cross-slot {@code multiGet} answers the
 * same on both.
 * <p>
 * The values cover what Spring Boot and commons-pool accept: unset, negative (unlimited),
 * zero, below and above Slotwise's {@code min-idle} default of 4, in two groups:
 * {@code max-active}, {@code max-idle} and {@code min-idle} (the settings that interact),
 * and {@code enabled}, {@code max-wait} and {@code time-between-eviction-runs}. Here, on
 * the cluster, a dozen combinations covering each kind of edge;
 * {@link PoolStartupParityTests} starts the full product of the first group and every
 * pair of the second without Redis.
 */
@WithRedisCluster
class PoolStartupParityIntegrationTests {

	static final String[] MAX_ACTIVE = { null, "-1", "0", "2" };

	static final String[] MAX_IDLE = { null, "-1", "0", "2" };

	static final String[] MIN_IDLE = { null, "-1", "2", "10" };

	static final String[] ENABLED = { null, "true", "false" };

	static final String[] MAX_WAIT = { null, "-1ms", "0ms", "100ms" };

	static final String[] EVICTION_RUNS = { null, "-1ms", "0ms", "1s" };

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void everyPoolCombinationPlainBootStartsWithStartsWithSlotwise(String client, RedisTestCluster cluster) {
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "spring.data.redis.timeout=2s",
					"slotwise.multikey.timeout=2s");
		compare(client, runner, clusterCombinations(), true);
	}

	/**
	 * Starts each combination with Slotwise off and on and asserts both start (and answer
	 * alike) or both fail.
	 * @param client the client
	 * @param runner the runner
	 * @param combinations the pool property values
	 * @param call whether to run a cross-slot multiGet in each started context
	 */
	static void compare(String client, ApplicationContextRunner runner, List<Map<String, String>> combinations,
			boolean call) {
		List<String> mismatches = new ArrayList<>();
		int started = 0;
		for (Map<String, String> pool : combinations) {
			String[] properties = pool.entrySet()
				.stream()
				.map((entry) -> "spring.data.redis." + client + ".pool." + entry.getKey() + "=" + entry.getValue())
				.toArray(String[]::new);
			// A pool of at most 0 connections serves no command, with or without
			// Slotwise.
			boolean usable = call && !"0".equals(pool.get("max-active"));
			Outcome plain = outcome(runner.withPropertyValues("slotwise.enabled=false").withPropertyValues(properties),
					usable);
			Outcome slotwise = outcome(runner.withPropertyValues(properties), usable);
			if (!plain.equals(slotwise)) {
				mismatches.add(pool + ": plain Spring Boot " + plain + ", Slotwise " + slotwise);
			}
			if (plain.started()) {
				started++;
			}
		}
		System.out.printf(
				"pool start-up matrix (%s%s): %d combinations, %d started with plain Spring Boot, %d mismatches%n",
				client, call ? ", cluster" : ", no Redis", combinations.size(), started, mismatches.size());
		assertThat(mismatches).isEmpty();
		assertThat(started).as("combinations plain Spring Boot starts with").isEqualTo(combinations.size());
	}

	private static Outcome outcome(ApplicationContextRunner runner, boolean usable) {
		Outcome[] outcome = new Outcome[1];
		runner.run((context) -> {
			if (context.getStartupFailure() != null) {
				outcome[0] = new Outcome(false, context.getStartupFailure().getClass().getSimpleName());
				return;
			}
			String answer = "-";
			if (usable) {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				template.opsForValue().set("pool:a", "1");
				answer = String.valueOf(template.opsForValue().multiGet(List.of("pool:a", "pool:b", "pool:c")));
			}
			outcome[0] = new Outcome(true, answer);
		});
		return outcome[0];
	}

	/**
	 * The combinations started on the cluster: the examples and each kind of edge
	 * (unlimited, zero, minimum above a maximum, pooling off, waits and evictor off).
	 */
	static List<Map<String, String>> clusterCombinations() {
		return List.of(pool("max-idle", "2"), pool("max-active", "2"), pool("max-active", "2", "max-idle", "1"),
				pool("min-idle", "10"), pool("max-active", "-1"), pool("max-idle", "-1"), pool("min-idle", "-1"),
				pool("max-active", "0"), pool("enabled", "false"), pool("max-wait", "-1ms"),
				pool("max-wait", "0ms", "time-between-eviction-runs", "0ms"),
				pool("max-active", "2", "max-idle", "2", "min-idle", "10"));
	}

	/**
	 * The full product of the first group, and every pair of values of the second (a
	 * Latin square).
	 */
	static List<Map<String, String>> allCombinations() {
		List<Map<String, String>> all = new ArrayList<>();
		for (String maxActive : MAX_ACTIVE) {
			for (String maxIdle : MAX_IDLE) {
				for (String minIdle : MIN_IDLE) {
					all.add(pool("max-active", maxActive, "max-idle", maxIdle, "min-idle", minIdle));
				}
			}
		}
		for (int i = 0; i < MAX_WAIT.length; i++) {
			for (int j = 0; j < EVICTION_RUNS.length; j++) {
				all.add(pool("enabled", ENABLED[(i + j) % ENABLED.length], "max-wait", MAX_WAIT[i],
						"time-between-eviction-runs", EVICTION_RUNS[j]));
			}
		}
		return all;
	}

	private static Map<String, String> pool(String... namesAndValues) {
		Map<String, String> pool = new LinkedHashMap<>();
		for (int i = 0; i < namesAndValues.length; i += 2) {
			if (namesAndValues[i + 1] != null) {
				pool.put(namesAndValues[i], namesAndValues[i + 1]);
			}
		}
		return pool;
	}

	/**
	 * How a start ended: started (and what a cross-slot multiGet answered), or the
	 * failure's type.
	 */
	private record Outcome(boolean started, String detail) {

		@Override
		public String toString() {
			return this.started ? "started, multiGet " + this.detail : "failed with " + this.detail;
		}

	}

}
