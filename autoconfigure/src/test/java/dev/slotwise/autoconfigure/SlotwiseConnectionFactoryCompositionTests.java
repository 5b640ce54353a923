package dev.slotwise.autoconfigure;

import dev.slotwise.connection.SlotwiseJedisConnectionFactoryCustomizer;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactoryCustomizer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A customizer of the application that claims a connection-factory hook Slotwise already
 * fills fails start-up naming both contributors, instead of one silently replacing the
 * other. The failure comes while Spring Boot's factory is replaced, before it connects:
 * no Redis is contacted (nothing listens on the configured port).
 */
class SlotwiseConnectionFactoryCompositionTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:1", "slotwise.pool.prewarm=false");

	@Test
	void jedisClusterConnectionsClaimedTwiceFailNamingBothContributors() {
		this.runner.withPropertyValues("spring.data.redis.client-type=jedis")
			.withBean("userConnections", SlotwiseJedisConnectionFactoryCustomizer.class,
					() -> (factory) -> factory.claimClusterConnections("user-connections",
							(client, executor, topology) -> null))
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("'user-connections' cannot provide the cluster connections")
				.hasMessageContaining("'slotwise-cluster-connections' already provides it"));
	}

	@Test
	void lettuceTopologyProviderClaimedTwiceFailsNamingBothContributors() {
		this.runner.withPropertyValues("spring.data.redis.client-type=lettuce")
			.withBean("userTopology", SlotwiseLettuceConnectionFactoryCustomizer.class,
					() -> (factory) -> factory.claimTopologyProvider("user-topology", (provider) -> provider))
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("'user-topology' cannot provide the topology provider")
				.hasMessageContaining("'slotwise-topology' already provides it"));
	}

}
