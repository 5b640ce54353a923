package dev.slotwise.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.slotwise.internal.metrics.TransactionMeters;
import dev.slotwise.internal.multikey.jedis.MultiKeyExecutor;
import dev.slotwise.internal.multikey.MultiKeySettings;
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
 * Wiring of the multi-key engine: beans, back-off and property validation. No Redis is
 * contacted.
 */
class SlotwiseMultiKeyConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class));

	@Test
	void providesSettingsExecutorAndCustomizersForBothClients() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(MultiKeySettings.class);
			assertThat(context).hasSingleBean(MultiKeyExecutor.class);
			assertThat(context).hasBean("slotwiseJedisMultiKeyFeature");
			assertThat(context).hasBean("slotwiseLettuceMultiKeyFeature");
			assertThat(context).hasBean("slotwiseJedisClusterConnections");
			assertThat(context).hasBean("slotwiseLettuceClusterConnections");
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "multikey", "pipeline", "keyspace", "pubsub" })
	void eachFeatureSwitchRemovesOnlyItsOwnFeature(String feature) {
		Map<String, List<String>> features = Map.of("multikey",
				List.of("slotwiseJedisMultiKeyFeature", "slotwiseLettuceMultiKeyFeature"), "pipeline",
				List.of("slotwiseJedisPipelineFeature"), "keyspace",
				List.of("slotwiseJedisKeyspaceFeature", "slotwiseLettuceKeyspaceFeature"), "pubsub",
				List.of("slotwiseJedisPubSubFeature", "slotwiseLettucePubSubFeature"));
		this.runner.withPropertyValues("slotwise." + feature + ".enabled=false").run((context) -> {
			features.forEach((name, beans) -> beans.forEach((bean) -> {
				if (name.equals(feature)) {
					assertThat(context).doesNotHaveBean(bean);
				}
				else {
					assertThat(context).hasBean(bean);
				}
			}));
			// What the features share stays for the others.
			assertThat(context).hasSingleBean(MultiKeySettings.class);
			assertThat(context).hasBean("slotwiseJedisClusterConnections");
			assertThat(context).hasBean("slotwiseLettuceClusterConnections");
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void noExecutorNorThreadUnlessAJedisClusterFactoryUsesIt(String client) {
		// Standalone (no cluster): Slotwise's factory replacement, the executor's only
		// user, does not apply.
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class,
					org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=" + client, "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=1")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBeanFactory().containsSingleton("slotwiseMultiKeyExecutor")).isFalse();
				assertThat(Thread.getAllStackTraces().keySet())
					.noneMatch((thread) -> thread.getName().startsWith("slotwise-multikey-"));
			});
	}

	@Test
	void defaultsMatchTheDocumentedValues() {
		this.runner.run((context) -> {
			assertThat(context.getBean(MultiKeySettings.class))
				.isEqualTo(new MultiKeySettings(500, 10_000, Duration.ofSeconds(5), 5));
			assertThat(context.getBean(MultiKeyExecutor.class).maxThreads())
				.isEqualTo(Runtime.getRuntime().availableProcessors() * 4);
		});
	}

	@Test
	void bindsProperties() {
		this.runner
			.withPropertyValues("slotwise.multikey.max-keys-per-command=100",
					"slotwise.multikey.max-commands-per-pipeline=50", "slotwise.multikey.timeout=750ms",
					"slotwise.multikey.max-redirects=2", "slotwise.multikey.jedis-executor.threads=3")
			.run((context) -> {
				assertThat(context.getBean(MultiKeySettings.class))
					.isEqualTo(new MultiKeySettings(100, 50, Duration.ofMillis(750), 2));
				assertThat(context.getBean(MultiKeyExecutor.class).maxThreads()).isEqualTo(3);
			});
	}

	@Test
	void backsOffWhenMultiKeyIsDisabled() {
		this.runner.withPropertyValues("slotwise.multikey.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean("slotwiseJedisMultiKeyFeature");
			assertThat(context).doesNotHaveBean("slotwiseLettuceMultiKeyFeature");
			assertThat(context).doesNotHaveBean("slotwiseMultiKeyMeters");
		});
	}

	@Test
	void transactionMetersFollowTheTransactionsSwitch() {
		this.runner.run((context) -> assertThat(context).hasSingleBean(TransactionMeters.class));
		this.runner.withPropertyValues("slotwise.transactions.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(TransactionMeters.class));
	}

	@Test
	void backsOffWhenSlotwiseIsDisabled() {
		this.runner.withPropertyValues("slotwise.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(MultiKeySettings.class);
			assertThat(context).doesNotHaveBean(MultiKeyExecutor.class);
		});
	}

	@Test
	void withoutJedisThereIsNoExecutorButLettuceIsCustomized() {
		this.runner.withClassLoader(new FilteredClassLoader(Jedis.class)).run((context) -> {
			assertThat(context).doesNotHaveBean(MultiKeyExecutor.class);
			assertThat(context).hasBean("slotwiseLettuceMultiKeyFeature");
		});
	}

	@Test
	void userSettingsWin() {
		this.runner.withUserConfiguration(UserSettings.class).run((context) -> {
			assertThat(context.getBean(MultiKeySettings.class).maxKeysPerCommand()).isEqualTo(7);
		});
	}

	@Test
	void executorShutsDownWithTheContext() {
		MultiKeyExecutor[] executor = new MultiKeyExecutor[1];
		this.runner.run((context) -> executor[0] = context.getBean(MultiKeyExecutor.class));
		assertThat(executor[0].isShutdown()).isTrue();
	}

	@Test
	void nonPositiveMaxKeysPerCommandFailsNamingTheProperty() {
		assertFailsNaming("slotwise.multikey.max-keys-per-command=0", "slotwise.multikey.max-keys-per-command");
	}

	@Test
	void nonPositiveMaxCommandsPerPipelineFailsNamingTheProperty() {
		assertFailsNaming("slotwise.multikey.max-commands-per-pipeline=0",
				"slotwise.multikey.max-commands-per-pipeline");
	}

	@Test
	void zeroTimeoutFailsNamingTheProperty() {
		assertFailsNaming("slotwise.multikey.timeout=0s", "slotwise.multikey.timeout");
	}

	@Test
	void negativeMaxRedirectsFailsNamingTheProperty() {
		assertFailsNaming("slotwise.multikey.max-redirects=-1", "slotwise.multikey.max-redirects");
	}

	@Test
	void zeroThreadsFailsNamingTheProperty() {
		assertFailsNaming("slotwise.multikey.jedis-executor.threads=0", "slotwise.multikey.jedis-executor.threads");
	}

	@Test
	void zeroQueueCapacityFailsNamingTheProperty() {
		assertFailsNaming("slotwise.multikey.jedis-executor.queue-capacity=0",
				"slotwise.multikey.jedis-executor.queue-capacity");
	}

	private void assertFailsNaming(String property, String name) {
		this.runner.withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining(name);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class UserSettings {

		@Bean
		MultiKeySettings userMultiKeySettings() {
			return new MultiKeySettings(7, 10, Duration.ofSeconds(1), 1);
		}

	}

}
