package dev.slotwise.internal.metrics;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.internal.nearcache.NearCacheRuntime;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Slotwise meter survives Prometheus's naming: registered in a real
 * {@link PrometheusMeterRegistry} that throws on any registration conflict, bound by
 * Spring Boot as a user's application binds it, and present in the scrape with values
 * after real calls on the cluster.
 */
@WithRedisCluster
class PrometheusMeterNamesIntegrationTests {

	/** Sample names every client produces. */
	private static final Set<String> COMMON = Set.of("slotwise_multikey_calls_seconds_bucket",
			"slotwise_multikey_calls_seconds_count", "slotwise_multikey_calls_seconds_sum",
			"slotwise_multikey_calls_seconds_max", "slotwise_multikey_keys_count", "slotwise_multikey_keys_sum",
			"slotwise_multikey_keys_max", "slotwise_multikey_redirects_total", "slotwise_topology_lookups_total",
			"slotwise_topology_refreshes_seconds_count", "slotwise_topology_refreshes_seconds_sum",
			"slotwise_topology_age_seconds",
			// The cluster-wide key walks (slotwise.keyspace).
			"slotwise_keyspace_scans_seconds_count", "slotwise_keyspace_scans_seconds_sum",
			"slotwise_keyspace_scans_seconds_max", "slotwise_keyspace_keys_scanned_total",
			"slotwise_keyspace_keys_duplicates_total", "slotwise_keyspace_walk_restarts_total",
			"slotwise_keyspace_cache_clears_seconds_count", "slotwise_keyspace_cache_clears_seconds_sum",
			"slotwise_keyspace_cache_clears_seconds_max", "slotwise_keyspace_keys_deleted_total",
			// Pub/sub across the cluster (slotwise.pubsub): the counter is registered at
			// once; the per-node subscription gauges and the message counter appear with
			// the first subscription.
			"slotwise_pubsub_resubscriptions_total", "slotwise_transactions_total",
			"slotwise_transactions_commands_count", "slotwise_transactions_commands_sum",
			"slotwise_transactions_commands_max");

	/** Sample names of Jedis's per-node pools. */
	private static final Set<String> JEDIS_POOLS = Set.of("slotwise_pool_connections", "slotwise_pool_connections_max",
			"slotwise_pool_waiting", "slotwise_pool_borrow_wait_mean_seconds", "slotwise_pool_connections_opened_total",
			"slotwise_pool_connections_closed_total", "slotwise_pool_borrows_total",
			// Cluster pipelines exist over Jedis only; their meters are registered with
			// the client's engine.
			"slotwise_pipeline_pipelines_seconds_count", "slotwise_pipeline_pipelines_seconds_sum",
			"slotwise_pipeline_pipelines_seconds_max", "slotwise_pipeline_commands_count",
			"slotwise_pipeline_commands_sum", "slotwise_pipeline_commands_max", "slotwise_pipeline_nodes_count",
			"slotwise_pipeline_nodes_sum", "slotwise_pipeline_nodes_max", "slotwise_pipeline_redirects_total",
			// The multi-key executor exists only when a Slotwise Jedis cluster factory
			// uses it (not over Lettuce, although Jedis is on these tests' class path).
			"slotwise_executor_active_threads", "slotwise_executor_queued_tasks",
			"slotwise_executor_completed_tasks_total", "slotwise_executor_pool_size_threads",
			"slotwise_executor_pool_core_threads", "slotwise_executor_pool_max_threads",
			"slotwise_executor_queue_remaining_tasks", "slotwise_executor_caller_runs_tasks_total");

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class,
				MetricsAutoConfiguration.class))
		.withBean(PrometheusMeterRegistry.class,
				() -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT).throwExceptionOnRegistrationFailure())
		.withPropertyValues("spring.data.redis.timeout=2s");

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void everySlotwiseMeterReachesTheScrapeUnderItsPrometheusName(String client, RedisTestCluster cluster) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class)
					.getClusterConnection()) {
					byte[][] keys = keys(50);
					Map<byte[], byte[]> values = new java.util.HashMap<>();
					for (byte[] key : keys) {
						values.put(key, key);
					}
					connection.stringCommands().mSet(values);
					connection.stringCommands().mGet(keys);
					connection.keyCommands().exists(keys);
					connection.keyCommands().unlink(keys);
					connection.stringCommands().mSet(values);
					try (org.springframework.data.redis.core.Cursor<byte[]> cursor = connection.keyCommands()
						.scan(org.springframework.data.redis.core.ScanOptions.scanOptions().match("prom:*").build())) {
						cursor.forEachRemaining((key) -> {
						});
					}
					connection.keyCommands().del(keys);
				}
				String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
				Map<String, Double> samples = PrometheusText.slotwiseSamples(scrape);
				Set<String> expected = new TreeSet<>(COMMON);
				if (client.equals("jedis")) {
					expected.addAll(JEDIS_POOLS);
				}
				assertThat(new TreeSet<>(samples.keySet())).isEqualTo(expected);
				assertThat(samples.get("slotwise_multikey_calls_seconds_count")).isEqualTo(6);
				assertThat(samples.get("slotwise_multikey_keys_sum")).isEqualTo(300);
				assertThat(samples.get("slotwise_keyspace_scans_seconds_count")).isEqualTo(1);
				assertThat(samples.get("slotwise_keyspace_keys_scanned_total")).isGreaterThanOrEqualTo(50);
				assertThat(samples.get("slotwise_topology_refreshes_seconds_count")).isPositive();
				if (client.equals("jedis")) {
					assertThat(samples.get("slotwise_topology_lookups_total")).isPositive();
					assertThat(samples.get("slotwise_pool_borrows_total")).isPositive();
					assertThat(samples.get("slotwise_pool_connections_opened_total")).isPositive();
					assertThat(samples.get("slotwise_executor_completed_tasks_total")).isPositive();
				}
			});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void theNearCacheMetersReachTheScrapeUnderTheirPrometheusNames(String client, RedisTestCluster cluster) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "slotwise.near-cache.enabled=true",
					"slotwise.near-cache.key-prefixes=prom:")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				org.springframework.data.redis.core.StringRedisTemplate template = context
					.getBean(org.springframework.data.redis.core.StringRedisTemplate.class);
				NearCacheRuntime nearCache = context.getBean(NearCacheRuntime.class);
				template.opsForValue().set("prom:a", "1");
				long deadline = System.nanoTime() + 20_000_000_000L;
				while (nearCache.links().size() < cluster.nodes().size()
						|| !nearCache.links().values().stream().allMatch("ready"::equals)) {
					assertThat(System.nanoTime()).as("links ready").isLessThan(deadline);
					Thread.sleep(20);
				}
				for (int i = 0; i < 10; i++) {
					template.opsForValue().get("prom:a");
					Thread.sleep(20);
				}
				context.getBean(NearCacheMeters.class).refresh();
				Map<String, Double> samples = PrometheusText
					.slotwiseSamples(context.getBean(PrometheusMeterRegistry.class).scrape());
				assertThat(samples.keySet().stream().filter((name) -> name.startsWith("slotwise_near_cache_")).sorted())
					.containsExactly("slotwise_near_cache_entries", "slotwise_near_cache_evictions_total",
							"slotwise_near_cache_flushes_entries_total", "slotwise_near_cache_flushes_total",
							"slotwise_near_cache_invalidations_keys_total", "slotwise_near_cache_invalidations_total",
							"slotwise_near_cache_links", "slotwise_near_cache_master_entries",
							"slotwise_near_cache_reads_total", "slotwise_near_cache_size_bytes");
				assertThat(samples.get("slotwise_near_cache_reads_total")).isEqualTo(10);
				assertThat(samples.get("slotwise_near_cache_links")).isEqualTo(cluster.nodes().size());
				assertThat(samples.get("slotwise_near_cache_master_entries"))
					.isEqualTo(samples.get("slotwise_near_cache_entries"));
			});
	}

	private static byte[][] keys(int count) {
		byte[][] keys = new byte[count][];
		for (int i = 0; i < count; i++) {
			keys[i] = ("prom:" + i).getBytes(StandardCharsets.UTF_8);
		}
		return keys;
	}

	/**
	 * Reads Prometheus's text format.
	 */
	static final class PrometheusText {

		private PrometheusText() {
		}

		/**
		 * Sums the values of every Slotwise sample by sample name (over all label sets).
		 * @param scrape the text a scrape returned
		 * @return sum of values per sample name; {@code NaN} values count as 0
		 */
		static Map<String, Double> slotwiseSamples(String scrape) {
			Map<String, Double> samples = new TreeMap<>();
			for (String line : scrape.lines().toList()) {
				if (!line.startsWith("slotwise_")) {
					continue;
				}
				int nameEnd = line.indexOf('{');
				int valueStart = line.lastIndexOf(' ');
				String name = line.substring(0, (nameEnd >= 0) ? nameEnd : line.indexOf(' '));
				double value = Double.parseDouble(line.substring(valueStart + 1));
				samples.merge(name, Double.isNaN(value) ? 0 : value, Double::sum);
			}
			return samples;
		}

	}

}
