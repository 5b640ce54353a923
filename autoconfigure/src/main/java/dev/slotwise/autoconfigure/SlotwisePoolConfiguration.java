package dev.slotwise.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.connection.SlotwiseJedisConnectionFactoryCustomizer;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactoryCustomizer;
import dev.slotwise.internal.pool.JedisClusterPrewarmer;
import dev.slotwise.internal.pool.LettuceClusterPrewarmer;
import dev.slotwise.internal.pool.PoolSettings;
import dev.slotwise.internal.pool.TunedConnectionPoolConfig;
import dev.slotwise.internal.pool.TunedObjectPoolConfig;
import dev.slotwise.internal.topology.JedisTopology;
import dev.slotwise.multikey.MultiKeyReadFrom;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisClient;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Jedis;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.data.redis.autoconfigure.JedisClientConfigurationBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration.LettucePoolingClientConfigurationBuilder;

/**
 * Slotwise's connection pools, one named bean per behaviour and client:
 * <ul>
 * <li><em>pool tuning</em> ({@code slotwiseJedisPoolCustomizer},
 * {@code slotwiseLettucePoolCustomizer}): Spring Boot's client configuration gets the
 * full tuned pool configuration; {@code slotwise.pool.enabled=false} turns it off;</li>
 * <li><em>pool re-application</em> ({@code slotwiseJedisPoolReapplication}): the Jedis
 * cluster client gets that configuration whole, where Spring Data Redis would copy a
 * subset;</li>
 * <li><em>pre-warm</em> ({@code slotwiseJedisPrewarm}, {@code slotwiseLettucePrewarm}):
 * connections open before start-up completes; {@code slotwise.pool.prewarm=false} turns
 * it off;</li>
 * <li><em>advisor</em> ({@code slotwiseJedisPoolAdvisor},
 * {@code slotwiseLettucePoolAdvisor}): one warning per harmful setting of the pool Spring
 * Boot's factory ends up with; {@code slotwise.pool.advisor=false} turns it off.</li>
 * </ul>
 */
@Configuration(proxyBeanMethods = false)
class SlotwisePoolConfiguration {

	static final String JEDIS = "jedis";

	static final String LETTUCE = "lettuce";

	private static final String POOL_CONTRIBUTOR = "slotwise-pool";

	private static final String PREWARM_CONTRIBUTOR = "slotwise-pool-prewarm";

	private static final Log logger = LogFactory.getLog(SlotwisePoolConfiguration.class);

	/**
	 * Binds a client's pool properties, says, in one line naming both properties, when a
	 * Slotwise default yielded to an explicit setting, and returns the settings of the
	 * tuned pool: {@code null} when the application turned the client's pooling off.
	 */
	static @Nullable PoolSettings tunedPool(Environment environment, String client, SlotwiseProperties properties) {
		ClientPoolProperties pool = ClientPoolProperties.bind(environment, client);
		String yielded = pool.yieldedDefault();
		if (yielded != null) {
			logger.info(yielded);
		}
		return pool.poolingDisabled() ? null : pool.toSettings(properties.getPool());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Jedis.class, JedisConnectionFactory.class, GenericObjectPool.class })
	static class JedisPoolConfiguration {

		@Bean
		@Order(SlotwiseOrder.POOL_TUNING)
		@ConditionalOnBooleanProperty(name = "slotwise.pool.enabled", matchIfMissing = true)
		JedisClientConfigurationBuilderCustomizer slotwiseJedisPoolCustomizer(SlotwiseProperties properties,
				Environment environment) {
			PoolSettings settings = tunedPool(environment, JEDIS, properties);
			return (builder) -> {
				if (settings != null) {
					builder.usePooling().poolConfig(new TunedConnectionPoolConfig(settings));
				}
			};
		}

		@Bean
		@Order(SlotwiseOrder.POOL)
		SlotwiseJedisConnectionFactoryCustomizer slotwiseJedisPoolReapplication(SlotwiseProperties properties) {
			boolean prewarm = properties.getPool().isPrewarm();
			return (factory) -> {
				Object poolConfig = factory.getPoolConfig();
				if (poolConfig instanceof TunedConnectionPoolConfig tuned) {
					// Spring Data Redis copies a subset of the pool settings into the
					// cluster client (dropping JMX, for one); hand the client the whole
					// configuration instead. With pre-warm on, the client builds every
					// node's pool with min-idle 0 and pre-warm raises it on the nodes
					// that serve requests: Jedis keeps a pool per node, replicas
					// included, and the evictor would otherwise hold min-idle connections
					// open to every replica and every demoted master.
					GenericObjectPoolConfig<Connection> config = prewarm ? withoutMinIdle(tuned) : tuned;
					factory.addClientBuilderCustomizer(POOL_CONTRIBUTOR, (builder) -> builder.poolConfig(config));
				}
			};
		}

		private static GenericObjectPoolConfig<Connection> withoutMinIdle(TunedConnectionPoolConfig tuned) {
			GenericObjectPoolConfig<Connection> copy = tuned.clone();
			copy.setMinIdle(0);
			return copy;
		}

		@Bean
		@Order(SlotwiseOrder.POOL)
		@ConditionalOnBooleanProperty(name = "slotwise.pool.prewarm", matchIfMissing = true)
		SlotwiseJedisConnectionFactoryCustomizer slotwiseJedisPrewarm(SlotwiseProperties properties) {
			// Replicas serve the multi-key engine's reads when
			// slotwise.multikey.read-from names them: warm them too.
			boolean replicas = properties.getMultikey().isEnabled()
					&& properties.getMultikey().getReadFrom() != MultiKeyReadFrom.MASTER;
			return (factory) -> factory.addClientStartedListener(PREWARM_CONTRIBUTOR, (client) -> {
				GenericObjectPoolConfig<Jedis> poolConfig = factory.getPoolConfig();
				int minIdle = (poolConfig != null) ? poolConfig.getMinIdle() : 0;
				JedisClusterPrewarmer.prewarm(client, () -> {
					ClusterTopology topology = factory.getRequiredTopologyProvider().getTopology();
					if (!replicas) {
						return topology.getActiveMasterNodes();
					}
					List<RedisClusterNode> nodes = new ArrayList<>(topology.getActiveMasterNodes());
					topology.getNodes().stream().filter(RedisClusterNode::isReplica).forEach(nodes::add);
					return nodes;
				}, minIdle);
				// Masters that join later (scale-out, promotion) are warmed when the
				// topology first shows them;
				// masters that stop serving (failover, resharding) stop keeping idle
				// connections, unless replica
				// reads may still use them.
				JedisTopology.onServingMastersChanged(factory.getRequiredTopologyProvider(), (change) -> {
					if (!replicas) {
						JedisClusterPrewarmer.release(client, change.removed());
					}
					JedisClusterPrewarmer.prewarm(client, change.added(), minIdle);
				});
			});
		}

		@Bean
		@ConditionalOnBooleanProperty(name = { "slotwise.pool.enabled", "slotwise.pool.advisor" },
				matchIfMissing = true)
		static PoolAdvisorPostProcessor<JedisConnectionFactory> slotwiseJedisPoolAdvisor() {
			return new PoolAdvisorPostProcessor<>(JedisConnectionFactory.class, "Jedis",
					JedisConnectionFactory::getPoolConfig);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ RedisClient.class, LettuceConnectionFactory.class })
	static class LettucePoolConfiguration {

		@Bean
		@Order(SlotwiseOrder.POOL)
		@ConditionalOnBooleanProperty(name = "slotwise.pool.prewarm", matchIfMissing = true)
		SlotwiseLettuceConnectionFactoryCustomizer slotwiseLettucePrewarm() {
			return (factory) -> factory.addStartedListener(PREWARM_CONTRIBUTOR, LettucePoolConfiguration::prewarm);
		}

		private static void prewarm(SlotwiseLettuceConnectionFactory factory) {
			ReadFrom readFrom = factory.getClientConfiguration().getReadFrom().orElse(ReadFrom.UPSTREAM);
			boolean replicas = readFrom != ReadFrom.UPSTREAM && readFrom != ReadFrom.MASTER;
			if (factory.getClientConfiguration() instanceof LettucePoolingClientConfiguration pooling) {
				LettuceClusterPrewarmer.prewarm(factory::getOrCreateSharedClusterConnection,
						factory::getRequiredConnectionProvider, pooling.getPoolConfig().getMinIdle(), replicas);
			}
			else {
				LettuceClusterPrewarmer.prewarm(factory::getOrCreateSharedClusterConnection, () -> null, 0, replicas);
			}
		}

		/**
		 * Lettuce's connection pool exists only when pooling is enabled (Spring Boot
		 * enables it whenever commons-pool2 is present unless
		 * {@code spring.data.redis.lettuce.pool.enabled=false}).
		 */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(GenericObjectPool.class)
		@ConditionalOnBooleanProperty(name = "slotwise.pool.enabled", matchIfMissing = true)
		static class LettucePoolTuningConfiguration {

			@Bean
			@Order(SlotwiseOrder.POOL_TUNING)
			LettuceClientConfigurationBuilderCustomizer slotwiseLettucePoolCustomizer(SlotwiseProperties properties,
					Environment environment) {
				PoolSettings settings = tunedPool(environment, LETTUCE, properties);
				return (builder) -> {
					if (settings != null && builder instanceof LettucePoolingClientConfigurationBuilder pooling) {
						pooling.poolConfig(new TunedObjectPoolConfig<>(settings));
					}
				};
			}

			@Bean
			@ConditionalOnBooleanProperty(name = "slotwise.pool.advisor", matchIfMissing = true)
			static PoolAdvisorPostProcessor<LettuceConnectionFactory> slotwiseLettucePoolAdvisor() {
				return new PoolAdvisorPostProcessor<>(LettuceConnectionFactory.class, "Lettuce",
						LettucePoolTuningConfiguration::poolConfig);
			}

			private static @Nullable GenericObjectPoolConfig<?> poolConfig(LettuceConnectionFactory factory) {
				return (factory.getClientConfiguration() instanceof LettucePoolingClientConfiguration pooling)
						? pooling.getPoolConfig() : null;
			}

		}

	}

}
