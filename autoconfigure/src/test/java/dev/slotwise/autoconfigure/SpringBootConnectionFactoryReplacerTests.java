package dev.slotwise.autoconfigure;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Boot's connection factory is recognised by the classes its auto-configuration
 * imports, resolved through its public {@code @Import}: if Spring Boot moves or renames
 * its connection configurations, this fails here rather than Slotwise silently leaving
 * Spring Boot's factory in place. No Redis is contacted.
 */
class SpringBootConnectionFactoryReplacerTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=1");

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void recognisesSpringBootsFactory(String client) {
		this.runner.withPropertyValues("spring.data.redis.client-type=" + client).run((context) -> {
			String[] names = context.getBeanNamesForType(RedisConnectionFactory.class);
			assertThat(names).hasSize(1);
			assertThat(SpringBootConnectionFactoryReplacer.isDefinedBySpringBoot(context.getBeanFactory(), names[0]))
				.isTrue();
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce" })
	void leavesTheApplicationsOwnFactoryAlone(String client) {
		this.runner.withBean("userFactory", LettuceConnectionFactory.class, LettuceConnectionFactory::new)
			.run((context) -> assertThat(
					SpringBootConnectionFactoryReplacer.isDefinedBySpringBoot(context.getBeanFactory(), "userFactory"))
				.isFalse());
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis" })
	void springBootsConnectionConfigurationsResolve(String client) {
		assertThat(SpringBootConnectionFactoryReplacer.bootFactoryDeclarers())
			.anyMatch((name) -> name.endsWith(".JedisConnectionConfiguration"))
			.anyMatch((name) -> name.endsWith(".LettuceConnectionConfiguration"));
	}

}
