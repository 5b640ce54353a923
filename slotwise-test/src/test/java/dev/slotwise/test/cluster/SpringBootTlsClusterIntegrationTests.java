package dev.slotwise.test.cluster;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A TLS-only cluster: the registered connection details carry an SSL bundle trusting the
 * cluster's CA.
 */
@SpringBootTest(classes = SpringBootConnectionDetailsIntegrationTests.Application.class,
		properties = "spring.data.redis.client-name=tls-app")
@WithRedisCluster(masters = 3, replicasPerMaster = 0, security = WithRedisCluster.Security.TLS)
class SpringBootTlsClusterIntegrationTests {

	@Autowired
	private StringRedisTemplate template;

	@Test
	void theApplicationConnectsOverTls(RedisTestCluster cluster) {
		this.template.opsForValue().set("tls-key", "tls-value");
		assertThat(this.template.opsForValue().get("tls-key")).isEqualTo("tls-value");
		assertThat(cluster.countClients(cluster.masterServing("tls-key"), "tls-app")).isPositive();
	}

}
