package dev.slotwise.samples;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Grafana dashboard in {@code src/dashboards/} against a real scrape: every metric
 * its queries use is in the Prometheus scrape of the sample running on the test cluster,
 * every Slotwise metric of that scrape is on some panel, and every panel says what it
 * shows and in which unit.
 */
@WithRedisCluster
class GrafanaDashboardIntegrationTests {

	private static final Path DASHBOARD = Path.of("..", "src", "dashboards", "slotwise-dashboard.json");

	private static final Pattern METRIC = Pattern.compile("\\bslotwise_[a-zA-Z0-9_]+");

	@Test
	void everyQueriedMetricIsScrapedAndEveryScrapedSlotwiseMetricIsOnAPanel(RedisTestCluster cluster) throws Exception {
		JsonNode dashboard = JsonMapper.builder().build().readTree(Files.readString(DASHBOARD));
		Set<String> queried = new TreeSet<>();
		for (String expression : expressions(dashboard)) {
			Matcher matcher = METRIC.matcher(expression);
			while (matcher.find()) {
				queried.add(matcher.group());
			}
		}
		// The near cache on the products, so that its meters and observations are in the
		// scrape too.
		try (RunningSample sample = RunningSample.start(cluster, "jedis", "--sample.products=1000",
				"--slotwise.near-cache.enabled=true", "--slotwise.near-cache.key-prefixes=product:")) {
			sample.post("/products/load?count=1000");
			sample.get("/products/random?count=300");
			sample.get("/products/random?count=300");
			// Pipelines, transactions, sharded pub/sub, scans and cache clears: their
			// meters are in the scrape too.
			assertThat(sample.get("/demo/workload?seconds=1")).doesNotContain("\"pipelines\":0,")
				.doesNotContain("\"transactions\":0,")
				.doesNotContain("\"cacheClears\":0,")
				.contains("\"failures\":0");
			Set<String> scraped = PrometheusScrape.parse(sample.get("/actuator/prometheus")).names("slotwise_");
			// The near cache counts its entries per master every few seconds: its gauge
			// appears at the next count.
			long deadline = System.nanoTime() + 20_000_000_000L;
			while (!scraped.containsAll(queried) && System.nanoTime() < deadline) {
				Thread.sleep(500);
				scraped = PrometheusScrape.parse(sample.get("/actuator/prometheus")).names("slotwise_");
			}
			assertThat(scraped).as("Slotwise metrics in the scrape").isNotEmpty();
			assertThat(queried).as("metrics the dashboard queries that the application does not export")
				.isSubsetOf(scraped);
			assertThat(scraped).as("Slotwise metrics no panel shows").isSubsetOf(queried);
		}
	}

	@Test
	void everyPanelHasADescriptionAUnitAndTheDataSourceVariable() throws Exception {
		JsonNode dashboard = JsonMapper.builder().build().readTree(Files.readString(DASHBOARD));
		List<JsonNode> panels = new ArrayList<>();
		dashboard.path("panels").forEach((panel) -> {
			panels.add(panel);
			panel.path("panels").forEach(panels::add);
		});
		List<JsonNode> graphs = panels.stream().filter((panel) -> panel.path("targets").size() > 0).toList();
		assertThat(graphs).hasSizeGreaterThan(15);
		assertThat(graphs).allSatisfy((panel) -> {
			String title = panel.path("title").asString();
			assertThat(panel.path("description").asString()).as("description of %s", title).isNotBlank();
			assertThat(panel.path("fieldConfig").path("defaults").path("unit").asString()).as("unit of %s", title)
				.isNotBlank();
			assertThat(panel.path("datasource").path("uid").asString()).as("data source of %s", title)
				.isEqualTo("${datasource}");
		});
		List<String> variables = new ArrayList<>();
		dashboard.path("templating")
			.path("list")
			.forEach((variable) -> variables.add(variable.path("name").asString()));
		assertThat(variables).contains("datasource", "application", "instance");
		assertThat(expressions(dashboard)).filteredOn((expression) -> expression.contains("slotwise_"))
			.filteredOn((expression) -> !expression.startsWith("label_values"))
			.allSatisfy((expression) -> assertThat(expression).contains("application=~\"$application\"")
				.contains("instance=~\"$instance\""));
	}

	private static List<String> expressions(JsonNode node) {
		List<String> expressions = new ArrayList<>();
		collect(node, expressions);
		return expressions;
	}

	private static void collect(JsonNode node, List<String> expressions) {
		if (node.isObject()) {
			node.properties().forEach((entry) -> {
				if ((entry.getKey().equals("expr") || entry.getKey().equals("definition"))
						&& entry.getValue().isString()) {
					expressions.add(entry.getValue().asString());
				}
				else {
					collect(entry.getValue(), expressions);
				}
			});
		}
		else if (node.isArray()) {
			node.forEach((element) -> collect(element, expressions));
		}
	}

}
