package dev.slotwise.autoconfigure;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The pool property combinations of {@link PoolStartupParityIntegrationTests#allCombinations()}, started with
 * Slotwise off and on: both start or both fail. Standalone factories that connect lazily, to a port where nothing
 * listens, so no Redis is contacted: what is compared is how each side binds and applies the values.
 */
class PoolStartupParityTests {

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void everyPoolCombinationPlainBootStartsWithStartsWithSlotwise(String client) {
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=" + client, "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=1");
		PoolStartupParityIntegrationTests.compare(client, runner, PoolStartupParityIntegrationTests.allCombinations(),
				false);
	}

}
