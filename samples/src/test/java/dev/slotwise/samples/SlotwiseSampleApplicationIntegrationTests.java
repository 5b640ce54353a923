package dev.slotwise.samples;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import dev.slotwise.internal.routing.SlotHash;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample web application, started as a user starts it, against a real cluster on both
 * clients: its endpoints answer with the right products, the servers see per-slot MGETs
 * instead of per-key GETs, and Actuator's Prometheus scrape and health report Slotwise.
 */
@WithRedisCluster
class SlotwiseSampleApplicationIntegrationTests {

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void servesTheCatalogueThroughSlotwiseAndShowsItInActuator(String client, RedisTestCluster cluster)
			throws Exception {
		try (RunningSample sample = RunningSample.start(cluster, client, "--sample.products=2000")) {
			assertThat(sample.post("/products/load?count=2000")).contains("\"products\":2000");

			cluster.resetStats();
			String ids = IntStream.range(0, 300).mapToObj(Integer::toString).collect(Collectors.joining(","));
			String products = sample.get("/products?ids=" + ids);
			assertThat(products).startsWith("[\"{\\\"id\\\":0,").contains("{\\\"id\\\":299,");
			// One MGET per hash slot of the 300 keys, no per-key GET: the servers' own
			// count.
			assertThat(cluster.totalCommandCalls("get")).isZero();
			assertThat(cluster.totalCommandCalls("mget")).isEqualTo(slotsOf(300));

			assertThat(sample.get("/products/random?count=500")).contains("\"requested\":500")
				.contains("\"found\":500")
				.contains("\"correct\":500");

			cluster.resetStats();
			String run = sample.get("/demo/multiget?keys=100&seconds=0.3&warmup=0.1");
			int calls = Integer.parseInt(run.replaceAll(".*\"calls\":(\\d+).*", "$1"));
			int warmupCalls = Integer.parseInt(run.replaceAll(".*\"warmupCalls\":(\\d+).*", "$1"));
			assertThat(calls).isPositive();
			assertThat(run).contains("\"keys\":100").contains("\"p50Micros\":").contains("\"p99Micros\":");
			assertThat(cluster.totalCommandCalls("get")).isZero();
			assertThat(cluster.totalCommandCalls("mget")).isBetween(90L * (calls + warmupCalls),
					100L * (calls + warmupCalls));

			PrometheusScrape scrape = PrometheusScrape.parse(sample.get("/actuator/prometheus"));
			double mgets = 2 + calls + warmupCalls;
			assertThat(scrape.sum("slotwise_multikey_calls_seconds_count", "application", "slotwise-sample", "client",
					client, "command", "mget", "outcome", "success"))
				.isEqualTo(mgets);
			assertThat(scrape.sum("slotwise_multikey_keys_sum", "client", client, "command", "mget"))
				.isEqualTo(800 + 100.0 * (calls + warmupCalls));
			assertThat(scrape.sum("slotwise_multikey_calls_seconds_count", "client", client, "command", "mset"))
				.isPositive();
			assertThat(scrape.sum("slotwise_multikey_calls_seconds_bucket", "client", client, "command", "mget", "le",
					"+Inf"))
				.isEqualTo(mgets);
			if (client.equals("jedis")) {
				assertThat(scrape.sum("slotwise_pool_borrows_total")).isPositive();
				assertThat(scrape.sum("slotwise_pool_connections", "state", "idle")).isPositive();
				assertThat(scrape.sum("slotwise_executor_completed_tasks_total", "name", "multikey")).isPositive();
				assertThat(scrape.sum("slotwise_topology_lookups_total", "client", "jedis")).isPositive();
			}

			String health = sample.get("/actuator/health");
			assertThat(health).contains("\"redis\":{\"details\":{\"slotsCovered\":16384")
				.endsWith("\"status\":\"UP\"}");
		}
	}

	private static int slotsOf(int products) {
		Set<Integer> slots = new HashSet<>();
		for (int id = 0; id < products; id++) {
			slots.add(SlotHash.slot(("product:" + id).getBytes(StandardCharsets.UTF_8)));
		}
		return slots.size();
	}

}
