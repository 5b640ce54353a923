package dev.slotwise.samples;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.stream.IntStream;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

/**
 * The sample's work: an ordinary application using an injected {@link StringRedisTemplate}.
 */
@Component
class CatalogueRunner implements ApplicationRunner {

	private final StringRedisTemplate template;

	private final RedisConnectionFactory connectionFactory;

	private final SampleProperties properties;

	private volatile CatalogueReport lastReport;

	CatalogueRunner(StringRedisTemplate template, RedisConnectionFactory connectionFactory,
			SampleProperties properties) {
		this.template = template;
		this.connectionFactory = connectionFactory;
		this.properties = properties;
	}

	@Override
	public void run(ApplicationArguments args) {
		this.lastReport = runCatalogue();
		System.out.print(this.lastReport.render());
	}

	CatalogueReport runCatalogue() {
		resetServerStats();
		List<String> keys = CatalogueReport.productKeys(this.properties.keys());
		Map<String, String> products = new HashMap<>();
		IntStream.range(0, keys.size()).forEach((i) -> products.put(keys.get(i), "{\"id\":" + i + "}"));
		this.template.opsForValue().multiSet(products);

		long start = System.nanoTime();
		List<String> values = this.template.opsForValue().multiGet(keys);
		double millis = (System.nanoTime() - start) / 1_000_000.0;

		long matching = IntStream.range(0, keys.size())
			.filter((i) -> values != null && Objects.equals(values.get(i), products.get(keys.get(i))))
			.count();
		return new CatalogueReport(this.connectionFactory.getClass().getSimpleName(), keys.size(), matching, millis,
				CatalogueReport.sumCommandStats(commandStatsOfMasters()));
	}

	CatalogueReport lastReport() {
		return this.lastReport;
	}

	private void resetServerStats() {
		try (RedisClusterConnection connection = this.connectionFactory.getClusterConnection()) {
			for (RedisClusterNode master : connection.clusterGetNodes()) {
				if (master.isMaster()) {
					connection.serverCommands().resetConfigStats(master);
				}
			}
		}
	}

	private List<Properties> commandStatsOfMasters() {
		List<Properties> sections = new ArrayList<>();
		try (RedisClusterConnection connection = this.connectionFactory.getClusterConnection()) {
			for (RedisClusterNode node : connection.clusterGetNodes()) {
				if (node.isMaster()) {
					sections.add(connection.serverCommands().info(node, "commandstats"));
				}
			}
		}
		return sections;
	}

}
