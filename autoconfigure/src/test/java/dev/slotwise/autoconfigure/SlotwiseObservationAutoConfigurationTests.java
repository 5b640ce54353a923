package dev.slotwise.autoconfigure;

import dev.slotwise.internal.observation.MultiKeyObservations;
import dev.slotwise.internal.observation.PipelineObservations;
import dev.slotwise.internal.observation.TransactionObservations;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Slotwise's observations exist exactly when there is an {@link ObservationRegistry} and
 * nobody turned them off.
 */
class SlotwiseObservationAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseObservationAutoConfiguration.class));

	@Test
	void observesMultiKeyCallsPipelinesAndTransactionsWhenARegistryExists() {
		this.runner.withBean(ObservationRegistry.class, ObservationRegistry::create).run((context) -> {
			assertThat(context).hasSingleBean(MultiKeyObservations.class);
			assertThat(context).hasSingleBean(PipelineObservations.class);
			assertThat(context).hasSingleBean(TransactionObservations.class);
		});
	}

	@Test
	void backsOffWithoutARegistry() {
		this.runner.run((context) -> {
			assertThat(context).doesNotHaveBean(MultiKeyObservations.class);
			assertThat(context).doesNotHaveBean(PipelineObservations.class);
			assertThat(context).doesNotHaveBean(TransactionObservations.class);
		});
	}

	@Test
	void backsOffWhenObservationsAreDisabled() {
		this.runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
			.withPropertyValues("slotwise.observations.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(MultiKeyObservations.class)
				.doesNotHaveBean(PipelineObservations.class)
				.doesNotHaveBean(TransactionObservations.class));
	}

	@Test
	void backsOffWhenSlotwiseIsDisabled() {
		this.runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
			.withPropertyValues("slotwise.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(MultiKeyObservations.class)
				.doesNotHaveBean(TransactionObservations.class));
	}

}
