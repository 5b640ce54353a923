package dev.slotwise.autoconfigure;

import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Slotwise's factories stand in for Spring Boot's in cluster mode and serve the
 * application's template on both clients.
 */
@WithRedisCluster
class SlotwiseClusterSmokeIntegrationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class));

	@Test
	void jedisTemplateRoundTripsThroughSlotwiseFactory(RedisTestCluster cluster) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=jedis",
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty())
			.run((context) -> {
				assertThat(context.getBean(RedisConnectionFactory.class))
					.isInstanceOf(SlotwiseJedisConnectionFactory.class);
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				template.opsForValue().set("smoke", "jedis");
				assertThat(template.opsForValue().get("smoke")).isEqualTo("jedis");
			});
	}

	@Test
	void lettuceTemplateRoundTripsThroughSlotwiseFactory(RedisTestCluster cluster) {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=lettuce",
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty())
			.run((context) -> {
				assertThat(context.getBean(RedisConnectionFactory.class))
					.isInstanceOf(SlotwiseLettuceConnectionFactory.class);
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				template.opsForValue().set("smoke", "lettuce");
				assertThat(template.opsForValue().get("smoke")).isEqualTo("lettuce");
			});
	}

}
