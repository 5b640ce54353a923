package dev.slotwise.samples;

import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample, run as a user runs it, against a real cluster on both clients.
 */
@WithRedisCluster
class SlotwiseSampleApplicationIntegrationTests {

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void readsBackTheWholeCatalogueThroughSlotwise(String client, RedisTestCluster cluster) {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SlotwiseSampleApplication.class)
			.run("--spring.data.redis.cluster.nodes=" + cluster.nodesProperty(),
					"--spring.data.redis.client-type=" + client, "--sample.keys=500")) {
			CatalogueReport report = context.getBean(CatalogueRunner.class).lastReport();
			assertThat(report.connectionFactory()).startsWith("Slotwise");
			assertThat(report.keys()).isEqualTo(500);
			assertThat(report.valuesMatching()).isEqualTo(500);
			assertThat(report.serverCommands()).doesNotContainKey("ping");
		}
	}

}
