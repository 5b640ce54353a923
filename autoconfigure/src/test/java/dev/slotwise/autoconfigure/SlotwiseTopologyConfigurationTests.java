package dev.slotwise.autoconfigure;

import dev.slotwise.connection.SlotwiseJedisConnectionFactoryCustomizer;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactoryCustomizer;
import dev.slotwise.internal.metrics.TopologyMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Wiring, back-off and validation of {@link SlotwiseTopologyConfiguration}.
 */
class SlotwiseTopologyConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class));

	@Test
	void customizesJedisFactories() {
		this.runner.run((context) -> assertThat(context).hasBean("slotwiseJedisTopologyCustomizer")
			.getBean("slotwiseJedisTopologyCustomizer")
			.isInstanceOf(SlotwiseJedisConnectionFactoryCustomizer.class));
	}

	@Test
	void customizesLettuceFactories() {
		this.runner.run((context) -> assertThat(context).hasBean("slotwiseLettuceTopologyCustomizer")
			.getBean("slotwiseLettuceTopologyCustomizer")
			.isInstanceOf(SlotwiseLettuceConnectionFactoryCustomizer.class));
	}

	@Test
	void backsOffWhenTopologyIsDisabled() {
		this.runner.withPropertyValues("slotwise.topology.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("slotwiseJedisTopologyCustomizer")
				.doesNotHaveBean("slotwiseLettuceTopologyCustomizer")
				.doesNotHaveBean(TopologyMeters.class));
	}

	@Test
	void backsOffForJedisWithoutJedis() {
		this.runner.withClassLoader(new FilteredClassLoader("redis.clients.jedis"))
			.run((context) -> assertThat(context).doesNotHaveBean("slotwiseJedisTopologyCustomizer")
				.hasBean("slotwiseLettuceTopologyCustomizer"));
	}

	@Test
	void backsOffForLettuceWithoutLettuce() {
		this.runner.withClassLoader(new FilteredClassLoader("io.lettuce"))
			.run((context) -> assertThat(context).doesNotHaveBean("slotwiseLettuceTopologyCustomizer")
				.hasBean("slotwiseJedisTopologyCustomizer"));
	}

	@Test
	void providesMetersWhenMicrometerIsPresent() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.run((context) -> assertThat(context).hasSingleBean(TopologyMeters.class));
	}

	@Test
	void providesNoMetersWhenMetricsAreDisabled() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("slotwise.metrics.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(TopologyMeters.class));
	}

	@Test
	void providesNoMetersWithoutMicrometer() {
		this.runner.withClassLoader(new FilteredClassLoader("io.micrometer.core"))
			.run((context) -> assertThat(context).doesNotHaveBean(TopologyMeters.class));
	}

	@Test
	void defaultsAreDocumentedValues() {
		this.runner.run((context) -> {
			SlotwiseProperties.Topology topology = context.getBean(SlotwiseProperties.class).getTopology();
			assertThat(topology.getCacheTtl()).hasSeconds(5);
			assertThat(topology.isPreferReplicas()).isTrue();
			assertThat(topology.getInitialTimeout()).hasSeconds(10);
			assertThat(topology.getRefreshSources()).isEqualTo(3);
			assertThat(topology.getPeriodicRefresh()).hasSeconds(60);
		});
	}

	@Test
	void rejectsZeroRefreshSourcesNamingTheProperty() {
		assertFailureNames("slotwise.topology.refresh-sources=0", "slotwise.topology.refresh-sources");
	}

	@Test
	void rejectsNegativeCacheTtlNamingTheProperty() {
		assertFailureNames("slotwise.topology.cache-ttl=-1s", "slotwise.topology.cache-ttl");
	}

	@Test
	void rejectsZeroInitialTimeoutNamingTheProperty() {
		assertFailureNames("slotwise.topology.initial-timeout=0s", "slotwise.topology.initial-timeout");
	}

	@Test
	void rejectsNegativePeriodicRefreshNamingTheProperty() {
		assertFailureNames("slotwise.topology.periodic-refresh=-1s", "slotwise.topology.periodic-refresh");
	}

	private void assertFailureNames(String property, String name) {
		this.runner.withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			StringBuilder messages = new StringBuilder();
			for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
				messages.append(cause.getMessage()).append('\n');
			}
			assertThat(messages.toString()).contains("'" + name + "'");
		});
	}

}
