package dev.slotwise.internal.topology;

import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;

import dev.slotwise.internal.compat.JedisInternals;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.providers.ClusterConnectionProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Jedis's slot cache renewals after connection failures
 * ({@link ClusterConnectionProvider#renewSlotCache()}, what its cluster executor calls
 * after every second failed attempt of a command) start at most once per quarter of the
 * minimum refresh interval once {@link JedisTopology#paceRenewals} gave the builder its
 * provider, counted as the {@code CLUSTER SLOTS} the servers answer; Slotwise's own
 * renewals are not paced. Without the pacing, every call renews (Jedis skips only a
 * renewal that overlaps a running one).
 */
@WithRedisCluster
class JedisRenewalPacingIntegrationTests {

	private static final Duration MIN_REFRESH_INTERVAL = Duration.ofSeconds(1);

	private static final int RENEWALS = 200;

	@Test
	void renewalsAfterConnectionFailuresStartAtMostOncePerQuarterInterval(RedisTestCluster cluster) {
		JedisClientConfig config = DefaultJedisClientConfig.builder().clientName("slotwise-renewal-pacing").build();
		RedisClusterClient.Builder builder = RedisClusterClient.builder();
		builder.nodes(seeds(cluster)).clientConfig(config);
		assertThat(JedisTopology.paceRenewals(builder, MIN_REFRESH_INTERVAL)).isTrue();
		try (RedisClusterClient client = builder.build()) {
			ClusterConnectionProvider provider = JedisInternals.clusterProvider(client);
			assertThat(provider).isNotNull();
			cluster.resetStats();
			long start = System.nanoTime();
			for (int i = 0; i < RENEWALS; i++) {
				provider.renewSlotCache();
			}
			long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
			long quarter = JedisTopology.renewalInterval(MIN_REFRESH_INTERVAL).toMillis();
			assertThat(cluster.totalCommandCalls("cluster|slots"))
				.as("CLUSTER SLOTS for %d renewals in %d ms", RENEWALS, elapsedMillis)
				.isPositive()
				.isLessThanOrEqualTo(elapsedMillis / quarter + 1);

			// Slotwise's topology provider paces its own renewals: each one reaches a
			// server.
			cluster.resetStats();
			for (int i = 0; i < 3; i++) {
				assertThat(JedisInternals.renewSlotCache(client)).isTrue();
			}
			assertThat(cluster.totalCommandCalls("cluster|slots")).isEqualTo(3);
		}
	}

	@Test
	void applicationsOwnConnectionProviderIsLeftAlone(RedisTestCluster cluster) {
		JedisClientConfig config = DefaultJedisClientConfig.builder().clientName("slotwise-renewal-pacing").build();
		try (ClusterConnectionProvider own = new ClusterConnectionProvider(seeds(cluster), config)) {
			RedisClusterClient.Builder builder = RedisClusterClient.builder();
			builder.nodes(seeds(cluster)).clientConfig(config).connectionProvider(own);
			assertThat(JedisTopology.paceRenewals(builder, MIN_REFRESH_INTERVAL)).isFalse();
			try (RedisClusterClient client = builder.build()) {
				assertThat(JedisInternals.clusterProvider(client)).isSameAs(own);
			}
		}
	}

	private static Set<HostAndPort> seeds(RedisTestCluster cluster) {
		return cluster.nodes()
			.stream()
			.map((node) -> new HostAndPort(node.host(), node.port()))
			.collect(Collectors.toSet());
	}

}
