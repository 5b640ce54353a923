package dev.slotwise.internal.health;

import java.time.Duration;
import java.util.Map;
import java.util.function.Predicate;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.autoconfigure.SlotwiseHealthAutoConfiguration;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.health.DataRedisHealthContributorAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.health.DataRedisReactiveHealthContributorAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The near cache in the cluster health details, on a real cluster: each node's
 * invalidation link when it tracks, the refusal when the servers refuse tracking (an ACL
 * user without {@code CLIENT TRACKING}), nothing when it is off; the status stays
 * {@code UP} in every case, since the application reads Redis without the near cache.
 */
@WithRedisCluster
class NearCacheHealthIntegrationTests {

	private static final String USER = "near-cache-no-tracking";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class,
				SlotwiseHealthAutoConfiguration.class, DataRedisHealthContributorAutoConfiguration.class,
				DataRedisReactiveHealthContributorAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.timeout=5s", "slotwise.near-cache.key-prefixes=health:");

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void everyNodesLinkIsShownWhileTrackingAndNothingWhenOff(String client, RedisTestCluster cluster) {
		cluster(client, cluster).withPropertyValues("slotwise.near-cache.enabled=true").run((context) -> {
			HealthIndicator indicator = context.getBean("redisHealthContributor", HealthIndicator.class);
			context.getBean(StringRedisTemplate.class).opsForValue().get("health:a");
			Health health = await(indicator, (details) -> "tracking".equals(details.get("state")));
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			Map<String, Object> nearCache = nearCache(health);
			assertThat(nearCache).doesNotContainKey("refused").containsKey("entries");
			assertThat(links(nearCache)).hasSize(cluster.nodes().size())
				.containsOnlyKeys(cluster.nodes().stream().map(RedisNode::address).toList())
				.allSatisfy((node, state) -> assertThat(state).isEqualTo("ready"));
		});
		cluster(client, cluster).run((context) -> {
			Health health = context.getBean("redisHealthContributor", HealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).doesNotContainKey("nearCache");
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void aRefusalIsShownAndTheStatusStaysUp(String client, RedisTestCluster cluster) {
		refusal(client, cluster);
	}

	private void refusal(String client, RedisTestCluster cluster) {
		for (RedisNode node : cluster.nodes()) {
			cluster.withAdmin(node, (Jedis jedis) -> jedis.aclSetUser(USER, "reset", "on", ">secret", "~*", "&*",
					"+@all", "-client|tracking"));
		}
		try {
			cluster(client, cluster)
				.withPropertyValues("slotwise.near-cache.enabled=true", "spring.data.redis.username=" + USER,
						"spring.data.redis.password=secret")
				.run((context) -> {
					HealthIndicator indicator = context.getBean("redisHealthContributor", HealthIndicator.class);
					context.getBean(StringRedisTemplate.class).opsForValue().get("health:a");
					Health health = await(indicator, (details) -> "refused".equals(details.get("state")));
					assertThat(health.getStatus()).isEqualTo(Status.UP);
					assertThat((String) nearCache(health).get("refused")).isNotBlank();
				});
		}
		finally {
			for (RedisNode node : cluster.nodes()) {
				cluster.withAdmin(node, (Jedis jedis) -> jedis.aclDelUser(USER));
			}
		}
	}

	private static Health await(HealthIndicator indicator, Predicate<Map<String, Object>> nearCacheState) {
		long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
		while (true) {
			Health health = indicator.health();
			Map<String, Object> nearCache = nearCache(health);
			if (nearCache != null && nearCacheState.test(nearCache)) {
				return health;
			}
			assertThat(System.nanoTime()).as("near cache state in time: %s", nearCache).isLessThan(deadline);
			sleep(50);
		}
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> nearCache(Health health) {
		return (Map<String, Object>) health.getDetails().get("nearCache");
	}

	@SuppressWarnings("unchecked")
	private static Map<String, String> links(Map<String, Object> nearCache) {
		return (Map<String, String>) nearCache.get("links");
	}

	private ApplicationContextRunner cluster(String client, RedisTestCluster cluster) {
		return this.runner.withPropertyValues("spring.data.redis.client-type=" + client,
				"spring.data.redis.cluster.nodes=" + cluster.nodesProperty());
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
