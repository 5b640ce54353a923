package dev.slotwise.internal.topology;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.internal.compat.SpringDataInternals;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.jedis.JedisClusterConnection;
import org.springframework.test.util.ReflectionTestUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Slotwise's Jedis topology provider returns Spring Data Redis's own topology type,
 * {@code JedisClusterConnection.JedisClusterTopology}, as Spring Data's provider does:
 * what Spring Data Redis's {@code JedisClusterConnectionTests.shouldUseCachedTopology}
 * asserts, done the same way (its field {@code cached} reset by reflection first: the
 * superclass's, which Slotwise's provider leaves unused).
 */
@WithRedisCluster
class JedisClusterTopologyTypeIntegrationTests {

	private static final String TYPE = "org.springframework.data.redis.connection.jedis.JedisClusterConnection$JedisClusterTopology";

	@Test
	void topologiesAreSpringDataRedisJedisClusterTopologies(RedisTestCluster cluster) throws Exception {
		Class<?> type = Class.forName(TYPE);
		assertThat(SpringDataInternals.jedisTopologyType().problem()).isNull();
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=jedis",
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty())
			.run((context) -> {
				ClusterTopologyProvider provider = context.getBean(SlotwiseJedisConnectionFactory.class)
					.getRequiredTopologyProvider();
				assertThat(provider).isInstanceOf(JedisClusterConnection.JedisClusterTopologyProvider.class);
				ReflectionTestUtils.setField(provider, "cached", null);
				ClusterTopology topology = provider.getTopology();
				assertThat(topology).isInstanceOf(type);
				assertThat(topology.getActiveMasterNodes()).hasSize(3);
				long fetchedAt = (long) type.getMethod("getTime").invoke(topology);
				assertThat(fetchedAt).isBetween(System.currentTimeMillis() - 60_000, System.currentTimeMillis());
			});
	}

}
