package dev.slotwise.autoconfigure;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;

import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.lettuce.core.api.StatefulConnection;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.ConnectionPoolConfig;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.JedisClientConfigurationBuilderCustomizer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How {@link SlotwiseAutoConfiguration} configures connection pools: defaults, binding,
 * precedence of the application's own settings, back-off and validation. The factories
 * connect while the context starts, so these run against the real test cluster; pool
 * settings are read from the pools the client really created.
 */
@WithRedisCluster
@ExtendWith(OutputCaptureExtension.class)
class SlotwisePoolAutoConfigurationIntegrationTests {

	private ApplicationContextRunner runner;

	@BeforeEach
	void prepare(RedisTestCluster cluster) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=jedis",
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty());
	}

	@Test
	void defaultsAreAppliedToEveryNodePool(RedisTestCluster cluster) {
		this.runner.run((context) -> {
			Collection<ConnectionPool> pools = nodePools(context);
			assertMinIdleOnMastersOnly(context, cluster, 4);
			assertThat(pools).hasSize(6).allSatisfy((pool) -> {
				assertThat(pool.getMaxTotal()).isEqualTo(ClientPoolProperties.defaultMaxActive());
				assertThat(pool.getMaxIdle()).isEqualTo(ClientPoolProperties.defaultMaxActive());
				assertThat(pool.getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(2));
				assertThat(pool.getTestOnBorrow()).isFalse();
				assertThat(pool.getTestOnReturn()).isFalse();
				assertThat(pool.getTestWhileIdle()).isTrue();
				assertThat(pool.getDurationBetweenEvictionRuns()).isEqualTo(Duration.ofSeconds(30));
				assertThat(pool.getSoftMinEvictableIdleDuration()).isEqualTo(Duration.ofMinutes(1));
				// Spring Data Redis's own copy of the pool settings drops JMX; a JMX name
				// proves ours arrived whole.
				assertThat(pool.getJmxName()).isNotNull();
				assertThat(pool.getJmxName().toString()).contains("slotwise-redis-pool");
			});
		});
	}

	@Test
	void everyPoolPropertyBinds() {
		this.runner
			.withPropertyValues("spring.data.redis.jedis.pool.max-active=21",
					"spring.data.redis.jedis.pool.max-idle=11", "spring.data.redis.jedis.pool.min-idle=3",
					"spring.data.redis.jedis.pool.max-wait=750ms", "slotwise.pool.test-on-borrow=true",
					"slotwise.pool.test-on-return=true", "slotwise.pool.test-while-idle=false",
					"spring.data.redis.jedis.pool.time-between-eviction-runs=7s",
					"slotwise.pool.soft-min-evictable-idle-time=9s", "slotwise.pool.jmx-enabled=false",
					"slotwise.pool.prewarm=false", "slotwise.pool.advisor=false")
			.run((context) -> {
				SlotwiseProperties.Pool bound = context.getBean(SlotwiseProperties.class).getPool();
				assertThat(bound.isPrewarm()).isFalse();
				assertThat(bound.isAdvisor()).isFalse();
				assertThat(nodePools(context)).allSatisfy((pool) -> {
					assertThat(pool.getMaxTotal()).isEqualTo(21);
					assertThat(pool.getMaxIdle()).isEqualTo(11);
					assertThat(pool.getMinIdle()).isEqualTo(3);
					assertThat(pool.getMaxWaitDuration()).isEqualTo(Duration.ofMillis(750));
					assertThat(pool.getTestOnBorrow()).isTrue();
					assertThat(pool.getTestOnReturn()).isTrue();
					assertThat(pool.getTestWhileIdle()).isFalse();
					assertThat(pool.getDurationBetweenEvictionRuns()).isEqualTo(Duration.ofSeconds(7));
					assertThat(pool.getSoftMinEvictableIdleDuration()).isEqualTo(Duration.ofSeconds(9));
					assertThat(pool.getJmxName()).isNull();
				});
			});
	}

	@Test
	void springDataRedisPoolPropertiesWinOverSlotwiseDefaults(RedisTestCluster cluster) {
		this.runner
			.withPropertyValues("spring.data.redis.jedis.pool.max-active=13",
					"spring.data.redis.jedis.pool.max-idle=12", "spring.data.redis.jedis.pool.min-idle=2",
					"spring.data.redis.jedis.pool.max-wait=300ms",
					"spring.data.redis.jedis.pool.time-between-eviction-runs=5s")
			.run((context) -> {
				assertThat(nodePools(context)).allSatisfy((pool) -> {
					assertThat(pool.getMaxTotal()).isEqualTo(13);
					assertThat(pool.getMaxIdle()).isEqualTo(12);
					assertThat(pool.getMaxWaitDuration()).isEqualTo(Duration.ofMillis(300));
					assertThat(pool.getDurationBetweenEvictionRuns()).isEqualTo(Duration.ofSeconds(5));
					// Settings Spring Boot does not expose still come from Slotwise.
					assertThat(pool.getTestOnBorrow()).isFalse();
					assertThat(pool.getTestWhileIdle()).isTrue();
				});
				assertMinIdleOnMastersOnly(context, cluster, 2);
			});
	}

	@Test
	void aConnectionFactoryOfTheApplicationIsLeftAlone(RedisTestCluster cluster) {
		ConnectionPoolConfig userPool = new ConnectionPoolConfig();
		userPool.setMaxTotal(5);
		JedisConnectionFactory userFactory = new JedisConnectionFactory(
				new RedisClusterConfiguration(Arrays.asList(cluster.nodesProperty().split(","))),
				JedisClientConfiguration.builder().usePooling().poolConfig(userPool).build());
		this.runner.withBean("userConnectionFactory", JedisConnectionFactory.class, () -> userFactory)
			.run((context) -> {
				RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
				assertThat(factory).isSameAs(userFactory);
				assertThat(factory.getClass()).isEqualTo(JedisConnectionFactory.class);
				assertThat(((JedisConnectionFactory) factory).getPoolConfig().getMaxTotal()).isEqualTo(5);
			});
	}

	@Test
	void aPoolConfigurationOfTheApplicationWins() {
		this.runner.withUserConfiguration(UserPoolCustomizerConfiguration.class)
			.run((context) -> assertThat(nodePools(context)).allSatisfy((pool) -> {
				assertThat(pool.getMaxTotal()).isEqualTo(3);
				assertThat(pool.getMinIdle()).isEqualTo(1);
			}));
	}

	@Test
	void disablingSlotwiseLeavesSpringBootUntouched() {
		this.runner.withPropertyValues("slotwise.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(SlotwiseProperties.class);
			JedisConnectionFactory factory = context.getBean(JedisConnectionFactory.class);
			assertThat(factory.getClass()).isEqualTo(JedisConnectionFactory.class);
			// Spring Boot's own default pool: 8 connections, no idle ones kept.
			assertThat(factory.getPoolConfig().getMaxTotal()).isEqualTo(8);
			assertThat(factory.getPoolConfig().getMinIdle()).isZero();
		});
	}

	@Test
	void minIdleDefaultYieldsToALowerMaxIdleOrMaxActive(RedisTestCluster cluster, CapturedOutput output) {
		this.runner.withPropertyValues("spring.data.redis.jedis.pool.max-idle=2").run((context) -> {
			assertThat(nodePools(context)).allSatisfy((pool) -> assertThat(pool.getMaxIdle()).isEqualTo(2));
			assertMinIdleOnMastersOnly(context, cluster, 2);
		});
		this.runner.withPropertyValues("spring.data.redis.jedis.pool.max-active=3").run((context) -> {
			assertThat(nodePools(context)).allSatisfy((pool) -> assertThat(pool.getMaxTotal()).isEqualTo(3));
			assertMinIdleOnMastersOnly(context, cluster, 3);
		});
		assertThat(output)
			.containsOnlyOnce(
					"spring.data.redis.jedis.pool.min-idle (4) yields to " + "spring.data.redis.jedis.pool.max-idle=2")
			.containsOnlyOnce("yields to spring.data.redis.jedis.pool.max-active=3")
			.doesNotContain("WARN");
	}

	@Test
	void explicitMinIdleAboveMaxIdleStartsWithOneWarningNamingBoth(CapturedOutput output) {
		this.runner
			.withPropertyValues("spring.data.redis.jedis.pool.max-idle=2", "spring.data.redis.jedis.pool.min-idle=5")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).containsOnlyOnce("spring.data.redis.jedis.pool.min-idle=5 is above "
						+ "spring.data.redis.jedis.pool.max-idle=2");
			});
	}

	@Test
	void advisorWarnsOncePerHarmfulSettingNamingTheProperty(CapturedOutput output) {
		this.runner
			.withPropertyValues("slotwise.pool.test-on-borrow=true", "spring.data.redis.jedis.pool.max-wait=-1ms",
					"spring.data.redis.jedis.pool.min-idle=0",
					"spring.data.redis.jedis.pool.time-between-eviction-runs=0s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).containsOnlyOnce("slotwise.pool.test-on-borrow=true sends a PING")
					.containsOnlyOnce("spring.data.redis.jedis.pool.max-wait=PT-0.001S lets a caller wait forever")
					.containsOnlyOnce("spring.data.redis.jedis.pool.min-idle=0 keeps no connection open")
					.containsOnlyOnce("slotwise.pool.test-while-idle=true does nothing")
					.doesNotContain("test-on-return=true");
			});
	}

	@Test
	void advisorIsSilentForSoundSettings(CapturedOutput output) {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).doesNotContain("connection pool:");
		});
	}

	@Test
	void lettucePoolGetsSlotwiseDefaults() {
		this.runner.withPropertyValues("spring.data.redis.client-type=lettuce").run((context) -> {
			LettuceConnectionFactory factory = context.getBean(LettuceConnectionFactory.class);
			assertThat(factory.getClientConfiguration()).isInstanceOf(LettucePoolingClientConfiguration.class);
			GenericObjectPoolConfig<StatefulConnection<?, ?>> pool = ((LettucePoolingClientConfiguration) factory
				.getClientConfiguration()).getPoolConfig();
			assertThat(pool.getMaxTotal()).isEqualTo(ClientPoolProperties.defaultMaxActive());
			// Spring Boot's own: the pool serves dedicated connections only, which nobody
			// borrows by default.
			assertThat(pool.getMinIdle()).isZero();
			assertThat(pool.getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(2));
			assertThat(pool.getTestWhileIdle()).isTrue();
			assertThat(pool.getDurationBetweenEvictionRuns()).isEqualTo(Duration.ofSeconds(30));
		});
	}

	@Test
	void lettucePoolPropertiesOfSpringBootWin() {
		this.runner
			.withPropertyValues("spring.data.redis.client-type=lettuce", "spring.data.redis.lettuce.pool.max-active=6",
					"spring.data.redis.lettuce.pool.min-idle=1")
			.run((context) -> {
				GenericObjectPoolConfig<StatefulConnection<?, ?>> pool = ((LettucePoolingClientConfiguration) context
					.getBean(LettuceConnectionFactory.class)
					.getClientConfiguration()).getPoolConfig();
				assertThat(pool.getMaxTotal()).isEqualTo(6);
				assertThat(pool.getMinIdle()).isEqualTo(1);
			});
	}

	/**
	 * Min-idle is kept only where requests go, the masters; replicas' pools open
	 * connections only on demand (JedisServingPoolsIntegrationTests).
	 */
	private static void assertMinIdleOnMastersOnly(AssertableApplicationContext context, RedisTestCluster cluster,
			int minIdle) {
		assertThat(context).hasNotFailed();
		Map<String, ConnectionPool> byAddress = context.getBean(SlotwiseJedisConnectionFactory.class)
			.getRequiredClusterClient()
			.getClusterNodes();
		for (RedisNode node : cluster.nodes()) {
			assertThat(byAddress.get(node.address()).getMinIdle()).as(node.address())
				.isEqualTo(cluster.isMaster(node) ? minIdle : 0);
		}
	}

	private static Collection<ConnectionPool> nodePools(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		SlotwiseJedisConnectionFactory factory = context.getBean(SlotwiseJedisConnectionFactory.class);
		return factory.getRequiredClusterClient().getClusterNodes().values();
	}

	@Configuration(proxyBeanMethods = false)
	static class UserPoolCustomizerConfiguration {

		@Bean
		JedisClientConfigurationBuilderCustomizer userPool() {
			ConnectionPoolConfig pool = new ConnectionPoolConfig();
			pool.setMaxTotal(3);
			pool.setMinIdle(1);
			return (builder) -> builder.usePooling().poolConfig(pool);
		}

	}

}
