package dev.slotwise.test.cluster;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A test that names the cluster nodes itself keeps them: no connection details of the
 * test cluster are registered.
 */
@SpringBootTest(classes = SpringBootConnectionDetailsIntegrationTests.Application.class,
		properties = "spring.data.redis.cluster.nodes=127.0.0.1:1")
@WithRedisCluster
class SpringBootNodesPropertyIntegrationTests {

	@Autowired
	private ApplicationContext context;

	@Test
	void theTestsOwnNodesPropertyWins() {
		assertThat(this.context.getBean(DataRedisConnectionDetails.class))
			.isNotInstanceOf(RedisClusterConnectionDetails.class);
		assertThat(this.context.containsBean(RedisClusterContextCustomizer.BEAN_NAME)).isFalse();
		LettuceConnectionFactory factory = (LettuceConnectionFactory) this.context
			.getBean(RedisConnectionFactory.class);
		assertThat(factory.getClusterConfiguration().getClusterNodes()).singleElement()
			.satisfies((node) -> assertThat(node.getPort()).isEqualTo(1));
	}

}
