package dev.slotwise.autoconfigure;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.ClassUtils;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The pool property combinations of
 * {@link PoolStartupParityIntegrationTests#allCombinations()}, started with Slotwise off
 * and on: both start or both fail. Standalone factories that connect lazily, to a port
 * where nothing listens, so no Redis is contacted: what is compared is how each side
 * binds and applies the values.
 */
class PoolStartupParityTests {

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void everyPoolCombinationPlainBootStartsWithStartsWithSlotwise(String client) {
		// Jedis 8's RedisClient borrows a connection in its constructor, so a standalone
		// factory is no longer lazy: with nothing listening, combinations such as
		// max-active=0 (max-wait forever) block start-up, with Slotwise and without. On
		// Jedis 8 the matrix needs a server: PoolStartupParityIntegrationTests runs it on
		// a cluster.
		assumeTrue(!client.equals("jedis") || ClassUtils.isPresent("redis.clients.jedis.ClusterCommandArguments", null),
				"Jedis 8 connects when its standalone client is created; the no-Redis pool matrix needs Jedis 7");
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=" + client, "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=1");
		PoolStartupParityIntegrationTests.compare(client, runner, PoolStartupParityIntegrationTests.allCombinations(),
				false);
	}

}
