package dev.slotwise.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start-up guard: on libraries older than Slotwise is built for (Spring Boot
 * 4.0.x's), Slotwise backs off before any of its classes loads and logs one WARN; Spring
 * Boot's own Redis configuration stays. Older libraries are simulated by hiding the
 * classes that only the supported versions have; {@code .ci/compat --leg boot-4.0} runs
 * an application on Spring Boot 4.0.x's real jars.
 */
@ExtendWith(OutputCaptureExtension.class)
class OnSupportedLibrariesConditionTests {

	private static final String WARNING = "Slotwise needs Spring Boot 4.1 or later";

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations
		.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class, SlotwiseHealthAutoConfiguration.class));

	@Test
	void slotwiseRunsOnTheLibrariesItIsBuiltFor(CapturedOutput output) {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(SlotwiseProperties.class);
			assertThat(output).doesNotContain(WARNING);
		});
	}

	@Test
	void backsOffWithOneWarningOnSpringDataRedis40(CapturedOutput output) {
		this.runner
			.withClassLoader(new FilteredClassLoader(
					"org.springframework.data.redis.connection.jedis.JedisClientBuilderCustomizer",
					"org.springframework.data.redis.util.RedisClientLibraryInfo"))
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.doesNotHaveBean(SlotwiseProperties.class)
					.doesNotHaveBean("redisHealthContributor");
				assertThat(context.getBean(RedisConnectionFactory.class))
					.isExactlyInstanceOf(LettuceConnectionFactory.class);
				assertThat(output.getOut().lines().filter((line) -> line.contains(WARNING))).singleElement()
					.asString()
					.contains("WARN", "Spring Boot ", "Spring Data Redis ", "JedisClientBuilderCustomizer",
							"RedisClientLibraryInfo", "plain Spring Data Redis");
			});
	}

	@Test
	void backsOffOnAJedisWithoutItsClusterClient(CapturedOutput output) {
		this.runner.withClassLoader(new FilteredClassLoader("redis.clients.jedis.RedisClusterClient"))
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(SlotwiseProperties.class);
				assertThat(output).contains(WARNING, "Jedis ", "redis.clients.jedis.RedisClusterClient");
			});
	}

	@Test
	void backsOffOnALettuceWithoutDriverInfo(CapturedOutput output) {
		this.runner.withClassLoader(new FilteredClassLoader("io.lettuce.core.DriverInfo")).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(SlotwiseProperties.class);
			assertThat(output).contains(WARNING, "Lettuce ", "io.lettuce.core.DriverInfo");
		});
	}

	@Test
	void staysSilentWhenSlotwiseIsDisabled(CapturedOutput output) {
		this.runner.withPropertyValues("slotwise.enabled=false")
			.withClassLoader(new FilteredClassLoader("org.springframework.data.redis.util.RedisClientLibraryInfo"))
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(SlotwiseProperties.class);
				assertThat(output).doesNotContain(WARNING);
			});
	}

}
