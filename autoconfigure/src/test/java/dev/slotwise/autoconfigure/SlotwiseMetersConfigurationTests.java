package dev.slotwise.autoconfigure;

import java.util.Map;

import dev.slotwise.internal.metrics.KeyspaceMeters;
import dev.slotwise.internal.metrics.MultiKeyMeters;
import dev.slotwise.internal.metrics.PipelineMeters;
import dev.slotwise.internal.metrics.PubSubMeters;
import dev.slotwise.internal.metrics.TopologyMeters;
import dev.slotwise.internal.metrics.TransactionMeters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The features' meter binders, declared together in {@link SlotwiseMetersConfiguration}:
 * each follows its own feature's switch and {@code slotwise.metrics.enabled}, and backs
 * off for the application's own; the Jedis executor's follow only the metrics switch.
 */
class SlotwiseMetersConfigurationTests {

	private static final Map<String, Class<?>> METERS = Map.of("topology", TopologyMeters.class, "multikey",
			MultiKeyMeters.class, "pipeline", PipelineMeters.class, "keyspace", KeyspaceMeters.class, "pubsub",
			PubSubMeters.class, "transactions", TransactionMeters.class);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class));

	@Test
	void everyFeatureHasItsMetersByDefault() {
		this.runner.run((context) -> {
			METERS.values().forEach((type) -> assertThat(context).hasSingleBean(type));
			assertThat(context).hasSingleBean(LazyExecutorMeters.class);
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "topology", "multikey", "pipeline", "keyspace", "pubsub", "transactions" })
	void eachFeatureSwitchRemovesOnlyItsOwnMeters(String feature) {
		this.runner.withPropertyValues("slotwise." + feature + ".enabled=false").run((context) -> {
			METERS.forEach((name, type) -> {
				if (name.equals(feature)) {
					assertThat(context).doesNotHaveBean(type);
				}
				else {
					assertThat(context).hasSingleBean(type);
				}
			});
		});
	}

	@Test
	void noMetersWhenMetricsAreDisabled() {
		this.runner.withPropertyValues("slotwise.metrics.enabled=false").run((context) -> {
			METERS.values().forEach((type) -> assertThat(context).doesNotHaveBean(type));
			assertThat(context).doesNotHaveBean(LazyExecutorMeters.class);
		});
	}

	@Test
	void executorMetersWhateverTheFeatures() {
		this.runner.withPropertyValues("slotwise.multikey.enabled=false", "slotwise.pipeline.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(LazyExecutorMeters.class));
	}

	@Test
	void pipelineAndExecutorMetersOnlyWithJedis() {
		this.runner.withClassLoader(new FilteredClassLoader(Jedis.class)).run((context) -> {
			assertThat(context).doesNotHaveBean(PipelineMeters.class);
			assertThat(context).doesNotHaveBean(LazyExecutorMeters.class);
			assertThat(context).hasSingleBean(MultiKeyMeters.class);
		});
	}

	@Test
	void backsOffForTheApplicationsOwnMeters() {
		this.runner.withUserConfiguration(OwnMeters.class).run((context) -> {
			assertThat(context).hasSingleBean(KeyspaceMeters.class);
			assertThat(context).hasBean("ownKeyspaceMeters").doesNotHaveBean("slotwiseKeyspaceMeters");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnMeters {

		@Bean
		KeyspaceMeters ownKeyspaceMeters() {
			return new KeyspaceMeters();
		}

	}

}
