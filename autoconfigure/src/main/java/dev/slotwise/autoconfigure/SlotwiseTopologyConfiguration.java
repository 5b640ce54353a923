package dev.slotwise.autoconfigure;

import java.time.Duration;

import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.connection.SlotwiseJedisConnectionFactoryCustomizer;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactoryCustomizer;
import dev.slotwise.internal.topology.JedisTopology;
import dev.slotwise.internal.topology.LettuceTopology;
import dev.slotwise.internal.topology.TopologyObserver;
import dev.slotwise.internal.topology.TopologySettings;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.builders.ClusterClientBuilder;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Slotwise's cluster topology: the randomized, cached, single-flight provider for Jedis;
 * sampled refresh sources, refresh options and a cached converted topology for Lettuce;
 * their meters are in {@link SlotwiseMetersConfiguration}. Backs off with
 * {@code slotwise.topology.enabled=false}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "slotwise.topology.enabled", matchIfMissing = true)
class SlotwiseTopologyConfiguration {

	static final String LETTUCE_REFRESH_PERIOD = "spring.data.redis.lettuce.cluster.refresh.period";

	private static final String CONTRIBUTOR = "slotwise-topology";

	private static TopologyObserver observer(ObjectProvider<TopologyObserver.Source> observers, String client) {
		TopologyObserver.Source available = observers.getIfAvailable();
		return (available != null) ? available.forClient(client) : TopologyObserver.NONE;
	}

	private static TopologySettings settings(SlotwiseProperties.Topology topology, TopologyObserver observer) {
		return new TopologySettings(topology.getCacheTtl(), topology.getMinRefreshInterval(),
				topology.isPreferReplicas(), topology.getInitialTimeout(), observer);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Jedis.class, JedisConnectionFactory.class })
	static class JedisTopologyConfiguration {

		@Bean
		@Order(SlotwiseOrder.TOPOLOGY)
		SlotwiseJedisConnectionFactoryCustomizer slotwiseJedisTopologyCustomizer(SlotwiseProperties properties,
				ObjectProvider<TopologyObserver.Source> observers) {
			SlotwiseProperties.Topology topology = properties.getTopology();
			return (factory) -> customize(factory, topology, observer(observers, SlotwiseJedisConfiguration.CLIENT));
		}

		private static void customize(SlotwiseJedisConnectionFactory factory, SlotwiseProperties.Topology topology,
				TopologyObserver observer) {
			TopologySettings settings = settings(topology, observer);
			factory.claimTopologyProvider(CONTRIBUTOR, (client) -> JedisTopology.provider(client, settings));
			Duration period = topology.getPeriodicRefresh();
			if (!period.isZero()) {
				// Jedis's own refresh keeps its slot cache (CLUSTER SLOTS, one random
				// node) current between MOVED replies; it runs on the client's own
				// thread, closed with the client.
				factory.addClientBuilderCustomizer(CONTRIBUTOR, (builder) -> {
					if (builder instanceof ClusterClientBuilder<?> cluster) {
						cluster.topologyRefreshPeriod(period);
					}
				});
			}
			// A finisher: the provider takes the builder's final settings, the
			// application's customizer's included.
			factory.addClientBuilderFinisher(CONTRIBUTOR, (builder) -> {
				if (builder instanceof ClusterClientBuilder<?> cluster) {
					JedisTopology.paceRenewals(cluster, topology.getMinRefreshInterval());
				}
			});
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ RedisClient.class, LettuceConnectionFactory.class })
	static class LettuceTopologyConfiguration {

		@Bean
		@Order(SlotwiseOrder.TOPOLOGY)
		SlotwiseLettuceConnectionFactoryCustomizer slotwiseLettuceTopologyCustomizer(SlotwiseProperties properties,
				ObjectProvider<TopologyObserver.Source> observers, Environment environment) {
			SlotwiseProperties.Topology topology = properties.getTopology();
			// An explicit Spring Boot refresh period wins over ours.
			Duration period = environment.containsProperty(LETTUCE_REFRESH_PERIOD) ? null
					: topology.getPeriodicRefresh();
			return (factory) -> customize(factory, topology, period,
					observer(observers, SlotwiseLettuceConfiguration.CLIENT));
		}

		private static void customize(SlotwiseLettuceConnectionFactory factory, SlotwiseProperties.Topology topology,
				@Nullable Duration period, TopologyObserver observer) {
			factory.claimClusterClient(CONTRIBUTOR, (resources, initialUris, options) -> {
				RedisClusterClient client = LettuceTopology.samplingClient(resources, initialUris,
						topology.getRefreshSources(), settings(topology, observer));
				client.setOptions(options.mutate()
					.topologyRefreshOptions(LettuceTopology.refreshOptions(options.getTopologyRefreshOptions(), period))
					.build());
				return client;
			});
			factory.claimTopologyProvider(CONTRIBUTOR, (provider) -> LettuceTopology.cachingProvider(provider,
					(RedisClusterClient) factory.getRequiredNativeClient(), observer));
		}

	}

}
