package dev.slotwise.internal.observation;

import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.autoconfigure.SlotwiseObservationAutoConfiguration;
import dev.slotwise.internal.nearcache.NearCacheRuntime;
import dev.slotwise.internal.observation.ObservationParityIntegrationTests.Recorder;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The near cache's template reads sent to Redis are {@code slotwise.near-cache}
 * observations tagged {@code result=miss}, with the multi-key call of an {@code mGet} as
 * a child; reads answered from memory are not observed, and neither are reads of keys
 * outside the prefixes.
 */
@WithRedisCluster
class NearCacheObservationIntegrationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class,
				SlotwiseObservationAutoConfiguration.class, DataRedisAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.timeout=5s", "slotwise.near-cache.enabled=true",
				"slotwise.near-cache.key-prefixes=obs-nc:");

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void missesAreObservedAndHitsAreNot(String client, RedisTestCluster cluster) {
		Recorder recorder = new Recorder();
		this.runner.withBean(io.micrometer.observation.ObservationRegistry.class, recorder::registry)
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty())
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				NearCacheRuntime nearCache = context.getBean(NearCacheRuntime.class);
				template.opsForValue().set("obs-nc:a", "1");
				template.opsForValue().set("obs-nc:b", "2");
				template.opsForValue().set("other:a", "3");
				long deadline = System.nanoTime() + 20_000_000_000L;
				byte[] a = "obs-nc:a".getBytes(StandardCharsets.UTF_8);
				// Read until kept: each read that went to Redis is one observation.
				int remote = 0;
				do {
					assertThat(System.nanoTime()).as("kept in time").isLessThan(deadline);
					assertThat(template.opsForValue().get("obs-nc:a")).isEqualTo("1");
					remote++;
					Thread.sleep(20);
				}
				while (nearCache.cache().peek(a) == null);
				List<Observation.Context> gets = recorder.await("slotwise.near-cache", remote);
				assertThat(gets)
					.allSatisfy((observation) -> assertThat(observation.getLowCardinalityKeyValues()).contains(
							KeyValue.of("result", "miss"), KeyValue.of("command", "get"), KeyValue.of("client", client),
							KeyValue.of("outcome", "success"), KeyValue.of("keys", "1-10")));
				// Hits and reads outside the prefixes: not observed.
				for (int i = 0; i < 20; i++) {
					assertThat(template.opsForValue().get("obs-nc:a")).isEqualTo("1");
					assertThat(template.opsForValue().get("other:a")).isEqualTo("3");
				}
				// A multiGet of a hit and a miss: one observation for the miss, its
				// multi-key call (if any) a child.
				assertThat(template.opsForValue().multiGet(List.of("obs-nc:a", "obs-nc:b"))).containsExactly("1", "2");
				List<Observation.Context> all = recorder.await("slotwise.near-cache", remote + 1);
				assertThat(all).hasSize(remote + 1);
				Observation.Context mget = all.get(all.size() - 1);
				assertThat(mget.getLowCardinalityKeyValue("command").getValue()).isEqualTo("mget");
				assertThat(mget.getHighCardinalityKeyValue("slotwise.size").getValue()).isEqualTo("1");
			});
	}

}
