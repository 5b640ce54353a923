package dev.slotwise.test.cluster;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An ACL cluster (default user off): the registered connection details carry the
 * application's user and password.
 */
@SpringBootTest(classes = SpringBootConnectionDetailsIntegrationTests.Application.class,
		properties = "spring.data.redis.client-name=acl-app")
@WithRedisCluster(masters = 3, replicasPerMaster = 0, security = WithRedisCluster.Security.ACL_USER)
class SpringBootAclClusterIntegrationTests {

	@Autowired
	private StringRedisTemplate template;

	@Test
	void theApplicationAuthenticatesAsTheAclUser(RedisTestCluster cluster) {
		this.template.opsForValue().set("acl-key", "acl-value");
		assertThat(this.template.opsForValue().get("acl-key")).isEqualTo("acl-value");
		RedisNode owner = cluster.masterServing("acl-key");
		assertThat(cluster.clients(owner)).filteredOn((client) -> "acl-app".equals(client.get("name")))
			.isNotEmpty()
			.allSatisfy((client) -> assertThat(client.get("user")).isEqualTo("slotwise-test-app"));
	}

}
