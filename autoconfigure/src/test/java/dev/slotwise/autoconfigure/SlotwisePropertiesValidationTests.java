package dev.slotwise.autoconfigure;

import dev.slotwise.multikey.MultiKeyReadFrom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Every invalid value of {@code slotwise.*} fails start-up the same way: a
 * {@link BindValidationException} naming the property. Spring Boot's own pool properties
 * are not Slotwise's to reject: whatever Spring Boot starts with starts (see
 * {@code PoolStartupMatrixIntegrationTests}). No Redis is contacted.
 */
@ExtendWith(OutputCaptureExtension.class)
class SlotwisePropertiesValidationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class));

	@Test
	void defaultsAreValid() {
		this.runner.run((context) -> assertThat(context).hasNotFailed());
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|',
			textBlock = """
					slotwise.pool.soft-min-evictable-idle-time=-1s       | slotwise.pool.soft-min-evictable-idle-time   | must not be negative
					slotwise.topology.cache-ttl=-1s                       | slotwise.topology.cache-ttl                  | must not be negative
					slotwise.topology.initial-timeout=0s                  | slotwise.topology.initial-timeout            | must be positive
					slotwise.topology.refresh-sources=0                   | slotwise.topology.refresh-sources            | must be at least 1
					slotwise.topology.periodic-refresh=-1s                | slotwise.topology.periodic-refresh           | must not be negative
					slotwise.multikey.max-keys-per-command=0              | slotwise.multikey.max-keys-per-command       | must be at least 1
					slotwise.multikey.max-commands-per-pipeline=0         | slotwise.multikey.max-commands-per-pipeline  | must be at least 1
					slotwise.multikey.timeout=0s                          | slotwise.multikey.timeout                    | must be positive
					slotwise.multikey.max-redirects=-1                    | slotwise.multikey.max-redirects              | must not be negative
					slotwise.multikey.jedis-executor.threads=0            | slotwise.multikey.jedis-executor.threads     | must be at least 1
					slotwise.multikey.jedis-executor.queue-capacity=0     | slotwise.multikey.jedis-executor.queue-capacity | must be at least 1
					slotwise.multikey.jedis-executor.thread-name-prefix=  | slotwise.multikey.jedis-executor.thread-name-prefix | must not be empty
					slotwise.multikey.jedis-executor.await-termination=-1s | slotwise.multikey.jedis-executor.await-termination | must not be negative
					slotwise.multikey.jedis-executor.inline-batch-size=-1B | slotwise.multikey.jedis-executor.inline-batch-size | must be 0B or more
					""")
	void invalidValueFailsStartUpNamingTheProperty(String property, String name, String reason) {
		assertFailsNaming(name, reason, property);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			spring.data.redis.jedis.pool.max-active=-1
			spring.data.redis.jedis.pool.max-active=0
			spring.data.redis.jedis.pool.max-idle=-1
			spring.data.redis.jedis.pool.min-idle=-1
			spring.data.redis.lettuce.pool.max-active=-1
			spring.data.redis.lettuce.pool.min-idle=-1
			""")
	void poolValuesSpringBootAcceptsStartWithSlotwiseToo(String property) {
		// Spring Boot and commons-pool accept any number (negative limits mean
		// unlimited); so does Slotwise.
		this.runner.withPropertyValues(property).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void failureAnalysisReportsTheSlotwisePropertyValueAndReason(CapturedOutput output) {
		assertFailureAnalysis(output, "--slotwise.multikey.jedis-executor.threads=0",
				"Property: slotwise.multikey.jedis-executor.threads", "Value: \"0\"",
				"Reason: 'slotwise.multikey.jedis-executor.threads' must be at least 1");
	}

	@Test
	void readFromBindsEachDocumentedValue() {
		this.runner.withPropertyValues("slotwise.multikey.read-from=replica-preferred").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(SlotwiseProperties.class).getMultikey().getReadFrom())
				.isEqualTo(MultiKeyReadFrom.REPLICA_PREFERRED);
		});
		this.runner.run((context) -> assertThat(context.getBean(SlotwiseProperties.class).getMultikey().getReadFrom())
			.isEqualTo(MultiKeyReadFrom.MASTER));
	}

	@Test
	void failureAnalysisReportsAnUnknownReadFrom(CapturedOutput output) {
		assertFailureAnalysis(output, "--slotwise.multikey.read-from=nearest", "slotwise.multikey.read-from",
				"nearest");
	}

	private void assertFailureAnalysis(CapturedOutput output, String argument, String... expected) {
		SpringApplication application = new SpringApplication(SlotwiseOnly.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> application.run(argument));
		assertThat(output).contains("APPLICATION FAILED TO START").contains(expected);
	}

	private void assertFailsNaming(String name, String reason, String... properties) {
		this.runner.withPropertyValues(properties).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(BindValidationException.class)
				.hasMessageContaining("'" + name + "'")
				.hasMessageContaining(reason);
		});
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(SlotwiseAutoConfiguration.class)
	static class SlotwiseOnly {

	}

}
