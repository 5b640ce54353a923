package dev.slotwise.autoconfigure;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration.LettucePoolingClientConfigurationBuilder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pool advisor is one bean per client, applied the same way to the pool of the
 * connection factory Spring Boot creates. Standalone factories that connect lazily, to a
 * port where nothing listens: no Redis is contacted.
 */
@ExtendWith(OutputCaptureExtension.class)
class SlotwisePoolAdvisorTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=1");

	@ParameterizedTest
	@ValueSource(strings = { "jedis" })
	void warnsOncePerHarmfulSettingNamingTheProperty(String client, CapturedOutput output) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis." + client + ".pool.min-idle=0",
					"spring.data.redis." + client + ".pool.max-wait=-1ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output)
					.containsOnlyOnce("spring.data.redis." + client + ".pool.min-idle=0 keeps no connection open")
					.containsOnlyOnce("spring.data.redis." + client + ".pool.max-wait=PT-0.001S lets a caller wait");
			});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void isSilentForSlotwiseDefaults(String client, CapturedOutput output) {
		this.runner.withPropertyValues("spring.data.redis.client-type=" + client).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasBean("slotwise" + (client.equals("jedis") ? "Jedis" : "Lettuce") + "PoolAdvisor");
			assertThat(output).doesNotContain("connection pool:");
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "slotwise.pool.advisor=false", "slotwise.pool.enabled=false" })
	void canBeTurnedOff(String property, CapturedOutput output) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=lettuce", property,
					"spring.data.redis.lettuce.pool.min-idle=0")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean("slotwiseLettucePoolAdvisor");
				assertThat(output).doesNotContain("connection pool:");
			});
	}

	@Test
	void anEmptyLettucePoolIsNoAdvice(CapturedOutput output) {
		// Over Lettuce every command but blocking ones and transactions shares one
		// connection per node.
		this.runner
			.withPropertyValues("spring.data.redis.client-type=lettuce", "spring.data.redis.lettuce.pool.min-idle=0",
					"spring.data.redis.lettuce.pool.max-wait=-1ms")
			.run((context) -> assertThat(output).doesNotContain("min-idle=0 keeps no connection open")
				.containsOnlyOnce("spring.data.redis.lettuce.pool.max-wait=PT-0.001S lets a caller wait"));
	}

	@Test
	void reviewsAPoolConfigurationTheApplicationSuppliedForLettuce(CapturedOutput output) {
		this.runner.withPropertyValues("spring.data.redis.client-type=lettuce")
			.withBean("userPool", LettuceClientConfigurationBuilderCustomizer.class, () -> (builder) -> {
				GenericObjectPoolConfig<io.lettuce.core.api.StatefulConnection<?, ?>> pool = new GenericObjectPoolConfig<>();
				pool.setMaxWait(java.time.Duration.ofMillis(-1));
				((LettucePoolingClientConfigurationBuilder) builder).poolConfig(pool);
			})
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).containsOnlyOnce(
						"Lettuce connection pool: maxWait in the application's Lettuce pool configuration=PT-0.001S lets a caller");
			});
	}

}
