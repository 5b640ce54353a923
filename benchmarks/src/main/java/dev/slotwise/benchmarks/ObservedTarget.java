package dev.slotwise.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.autoconfigure.SlotwiseObservationAutoConfiguration;
import dev.slotwise.test.cluster.RedisTestCluster;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.observation.LettuceObservationAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Slotwise over one client ({@code jedis}, {@code lettuce}), or plain Spring Boot
 * ({@code sdr-lettuce}, the baseline for what Lettuce's own observations cost without
 * Slotwise), on an existing cluster, with one of three observation set-ups: {@code none}
 * (no {@link ObservationRegistry}: Lettuce's tracing off, no Slotwise observation),
 * {@code noop} (a registry without handlers: Spring Boot turns Lettuce's tracing on,
 * every observation is a no-op), {@code recording} (a registry whose handler keeps a
 * count and total time per observation name and low-cardinality key set, the work a meter
 * registry's timer does for each observation).
 */
final class ObservedTarget implements AutoCloseable {

	private final ConfigurableApplicationContext context;

	private final StringRedisTemplate template;

	private final Recording recording;

	private final List<List<String>> keySets;

	private int next;

	ObservedTarget(RedisTestCluster cluster, String client, String registry, int keysPerCall) {
		this.recording = registry.equals("recording") ? new Recording() : null;
		ObservationRegistry observations = switch (registry) {
			case "none" -> null;
			case "noop" -> ObservationRegistry.create();
			case "recording" -> {
				ObservationRegistry recordingRegistry = ObservationRegistry.create();
				recordingRegistry.observationConfig().observationHandler(this.recording);
				yield recordingRegistry;
			}
			default -> throw new IllegalArgumentException("registry must be none, noop or recording: " + registry);
		};
		SpringApplicationBuilder builder = new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties("spring.data.redis.client-type=" + client.replace("sdr-", ""),
					"slotwise.enabled=" + !client.startsWith("sdr-"),
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "spring.data.redis.timeout=30s",
					"slotwise.multikey.timeout=30s", "spring.main.banner-mode=off");
		if (observations != null) {
			builder.initializers(
					(context) -> context.getBeanFactory().registerSingleton("observationRegistry", observations));
		}
		this.context = builder.run();
		this.template = this.context.getBean(StringRedisTemplate.class);
		Random random = new Random(42);
		this.keySets = new ArrayList<>();
		for (int s = 0; s < 64; s++) {
			List<String> keys = new ArrayList<>(keysPerCall);
			for (int i = 0; i < keysPerCall; i++) {
				keys.add(key(random.nextInt(MultiGetTarget.KEYSPACE)));
			}
			this.keySets.add(keys);
		}
		List<String> values = multiGet();
		if (values.size() != keysPerCall || values.contains(null)) {
			throw new IllegalStateException(client + "/" + registry + " returned wrong values");
		}
	}

	/**
	 * Fills the cluster with the key space every target reads.
	 * @param cluster the cluster
	 */
	static void populate(RedisTestCluster cluster) {
		RedisClusterClient client = RedisClusterClient
			.create(cluster.nodes().stream().map((node) -> RedisURI.create(node.host(), node.port())).toList());
		try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
			connection.setTimeout(Duration.ofSeconds(30));
			Map<String, String> batch = new LinkedHashMap<>();
			for (int i = 0; i < MultiGetTarget.KEYSPACE; i++) {
				batch.put(key(i), "value-" + i + "-".repeat(64));
				if (batch.size() == 1000) {
					connection.sync().mset(batch);
					batch.clear();
				}
			}
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	private static String key(int i) {
		return "bench:" + i;
	}

	/**
	 * Reads the next prepared key set.
	 * @return the values
	 */
	List<String> multiGet() {
		List<String> keys = this.keySets.get((this.next++ & Integer.MAX_VALUE) % this.keySets.size());
		return this.template.opsForValue().multiGet(keys);
	}

	/**
	 * How many observations the recording registry saw, per name.
	 * @return the counts, empty for other set-ups
	 */
	Map<String, Long> observed() {
		Map<String, Long> counts = new LinkedHashMap<>();
		if (this.recording != null) {
			this.recording.timers.forEach((key, timer) -> counts.merge(key.name(), timer[0].sum(), Long::sum));
		}
		return counts;
	}

	@Override
	public void close() {
		this.context.close();
	}

	/**
	 * Keeps a count and a total duration per observation name and low-cardinality key
	 * set.
	 */
	static final class Recording implements ObservationHandler<Observation.Context> {

		final Map<TimerKey, LongAdder[]> timers = new ConcurrentHashMap<>();

		@Override
		public void onStart(Observation.Context context) {
			context.put(Recording.class, System.nanoTime());
		}

		@Override
		public void onStop(Observation.Context context) {
			Long started = context.get(Recording.class);
			List<KeyValue> tags = new ArrayList<>();
			context.getLowCardinalityKeyValues().forEach(tags::add);
			LongAdder[] timer = this.timers.computeIfAbsent(new TimerKey(String.valueOf(context.getName()), tags),
					(key) -> new LongAdder[] { new LongAdder(), new LongAdder() });
			timer[0].increment();
			if (started != null) {
				timer[1].add(System.nanoTime() - started);
			}
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

	record TimerKey(String name, List<KeyValue> tags) {
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ SlotwiseAutoConfiguration.class, SlotwiseObservationAutoConfiguration.class,
			DataRedisAutoConfiguration.class, LettuceObservationAutoConfiguration.class })
	static class Application {

	}

}
