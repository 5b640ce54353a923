package dev.slotwise.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisTestCluster;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One system under test for the reactive multi-get benchmarks, on its own freshly started
 * 3-master cluster: {@link ReactiveStringRedisTemplate} over Lettuce with Spring Data
 * Redis alone ({@code sdr-reactive}) or with Slotwise ({@code slotwise-reactive}), or
 * Slotwise's imperative Lettuce path ({@code slotwise-lettuce}) for reference.
 */
final class ReactiveMultiGetTarget implements AutoCloseable {

	private static final int KEYSPACE = 20_000;

	private static final int KEY_SETS = 64;

	private static final Duration WAIT = Duration.ofSeconds(60);

	private final RedisTestCluster cluster;

	private final ConfigurableApplicationContext context;

	private final ReactiveStringRedisTemplate reactive;

	private final StringRedisTemplate imperative;

	private final boolean useReactive;

	private final List<List<String>> keySets;

	private int next;

	ReactiveMultiGetTarget(String target, int keysPerCall) {
		this.cluster = RedisTestCluster.start(ClusterShape.DEFAULT);
		this.useReactive = target.endsWith("reactive");
		boolean slotwise = target.startsWith("slotwise");
		this.context = new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties("spring.data.redis.client-type=lettuce",
					"spring.data.redis.cluster.nodes=" + this.cluster.nodesProperty(), "spring.data.redis.timeout=60s",
					"slotwise.enabled=" + slotwise, "slotwise.multikey.timeout=60s", "spring.main.banner-mode=off")
			.run();
		this.reactive = new ReactiveStringRedisTemplate(this.context.getBean(ReactiveRedisConnectionFactory.class));
		this.imperative = this.context.getBean(StringRedisTemplate.class);
		Map<String, String> batch = new LinkedHashMap<>();
		for (int i = 0; i < KEYSPACE; i++) {
			batch.put(key(i), "value-" + i + "-".repeat(64));
			if (batch.size() == 1000) {
				this.imperative.opsForValue().multiSet(batch);
				batch.clear();
			}
		}
		Random random = new Random(42);
		this.keySets = new ArrayList<>(KEY_SETS);
		for (int s = 0; s < KEY_SETS; s++) {
			List<String> keys = new ArrayList<>(keysPerCall);
			for (int i = 0; i < keysPerCall; i++) {
				keys.add(key(random.nextInt(KEYSPACE)));
			}
			this.keySets.add(keys);
		}
		List<String> values = multiGet(this.keySets.get(0));
		if (values == null || values.size() != keysPerCall || values.contains(null)) {
			throw new IllegalStateException(target + " returned wrong values");
		}
	}

	private static String key(int i) {
		return "bench:" + i;
	}

	List<String> nextKeys() {
		int index = (this.next++ & Integer.MAX_VALUE) % KEY_SETS;
		return this.keySets.get(index);
	}

	List<String> multiGet(List<String> keys) {
		if (this.useReactive) {
			// The benchmark thread waits for the Mono; the call itself waits nowhere.
			return this.reactive.opsForValue().multiGet(keys).block(WAIT);
		}
		return this.imperative.opsForValue().multiGet(keys);
	}

	@Override
	public void close() {
		try {
			this.context.close();
		}
		finally {
			this.cluster.close();
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class })
	static class Application {

	}

}
