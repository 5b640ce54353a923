package dev.slotwise.test.cluster;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A plain Spring Boot application (no Slotwise, no {@code spring.data.redis} property at
 * all) under {@code @SpringBootTest} and {@code @WithRedisCluster}: Spring Boot connects
 * to the test cluster in cluster mode through the registered connection details, and the
 * writes land on every master.
 */
@SpringBootTest(classes = SpringBootConnectionDetailsIntegrationTests.Application.class)
@WithRedisCluster
class SpringBootConnectionDetailsIntegrationTests {

	@Autowired
	private ApplicationContext context;

	@Autowired
	private StringRedisTemplate template;

	@Test
	void theApplicationConnectsToTheClusterWithNoProperty(RedisTestCluster cluster) {
		assertThat(this.context.getEnvironment().getProperty("spring.data.redis.cluster.nodes")).isNull();
		assertThat(this.context.getBean(DataRedisConnectionDetails.class))
			.isInstanceOf(RedisClusterConnectionDetails.class);
		LettuceConnectionFactory factory = (LettuceConnectionFactory) this.context
			.getBean(RedisConnectionFactory.class);
		assertThat(factory.getClusterConfiguration()).isNotNull();
		assertThat(factory.getClusterConfiguration().getClusterNodes()).hasSize(cluster.nodes().size());

		Map<String, String> values = IntStream.range(0, 60)
			.boxed()
			.collect(Collectors.toMap((i) -> "key:" + i, (i) -> "value:" + i));
		values.forEach((key, value) -> this.template.opsForValue().set(key, value));

		// The servers' own counts: every master took a share of the 60 SETs, 60 in all
		// (replicas count them again).
		Map<RedisNode, Long> sets = cluster.commandCallsPerNode("set");
		List<RedisNode> masters = cluster.masters();
		assertThat(masters).allSatisfy((master) -> assertThat(sets.get(master)).isPositive());
		assertThat(masters.stream().mapToLong(sets::get).sum()).isEqualTo(60);
		values.forEach((key, value) -> {
			String stored = cluster.withAdmin(cluster.masterServing(key), (jedis) -> jedis.get(key));
			assertThat(stored).isEqualTo(value);
		});
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

}
