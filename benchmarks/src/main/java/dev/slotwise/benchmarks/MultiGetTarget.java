package dev.slotwise.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisTestCluster;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One system under test for the multi-get benchmarks, on its own freshly started 3-master
 * cluster (or another shape): Spring Data Redis defaults or Slotwise, over Jedis or
 * Lettuce, through the application's {@link StringRedisTemplate}; Lettuce's own async
 * cluster {@code mget} with no Spring in between; or the hand-written physical-limit
 * reference {@link IdealMultiGet} ({@code ideal}), or its Lettuce counterpart
 * {@link IdealLettuceMultiGet} ({@code ideal-lettuce}). {@code slotwise-jedis-executor}
 * sends every node batch on the executor; {@code slotwise-jedis-bytes} calls the engine
 * with byte arrays on a held connection, without the template.
 */
final class MultiGetTarget implements AutoCloseable {

	static final int KEYSPACE = 20_000;

	private static final int KEY_SETS = 64;

	private final RedisTestCluster cluster;

	private final RedisClusterClient lettuce;

	private final StatefulRedisClusterConnection<String, String> lettuceConnection;

	private final @Nullable ConfigurableApplicationContext context;

	private final @Nullable StringRedisTemplate template;

	private final @Nullable IdealMultiGet ideal;

	private final @Nullable IdealLettuceMultiGet idealLettuce;

	private final List<List<String>> keySets;

	private final boolean raw;

	/**
	 * For {@code slotwise-jedis-bytes}: one cluster connection held open, called with
	 * byte arrays, no template.
	 */
	private final @Nullable RedisClusterConnection bytes;

	private int next;

	MultiGetTarget(String target, int keysPerCall) {
		this(target, keysPerCall, ClusterShape.DEFAULT);
	}

	MultiGetTarget(String target, int keysPerCall, ClusterShape shape) {
		this.cluster = RedisTestCluster.start(shape);
		this.lettuce = RedisClusterClient
			.create(this.cluster.nodes().stream().map((node) -> RedisURI.create(node.host(), node.port())).toList());
		this.lettuceConnection = this.lettuce.connect();
		this.lettuceConnection.setTimeout(Duration.ofSeconds(30));
		populate();
		this.raw = target.equals("lettuce-async");
		String client = target.contains("jedis") ? "jedis" : "lettuce";
		boolean slotwise = target.startsWith("slotwise");
		this.ideal = target.equals("ideal") ? new IdealMultiGet(this.cluster) : null;
		this.idealLettuce = target.equals("ideal-lettuce") ? new IdealLettuceMultiGet(this.cluster) : null;
		// slotwise-jedis-executor: every node batch on the executor's threads, as before
		// the caller wrote small batches itself (issue 19), for an A/B in the same run.
		this.context = (this.ideal != null || this.idealLettuce != null) ? null
				: start(client, slotwise, target.endsWith("-executor")
						? "slotwise.multikey.jedis-executor.inline-batch-size=0" : "slotwise.enabled=" + slotwise);
		this.template = (this.context != null) ? this.context.getBean(StringRedisTemplate.class) : null;
		// slotwise-jedis-bytes: the engine without Spring Data's template and
		// serializers, to tell their share of a call from the engine's.
		this.bytes = (this.context != null && target.endsWith("-bytes"))
				? this.context.getBean(RedisConnectionFactory.class).getClusterConnection() : null;
		Random random = new Random(42);
		this.keySets = new ArrayList<>(KEY_SETS);
		for (int s = 0; s < KEY_SETS; s++) {
			List<String> keys = new ArrayList<>(keysPerCall);
			for (int i = 0; i < keysPerCall; i++) {
				keys.add(key(random.nextInt(KEYSPACE)));
			}
			this.keySets.add(keys);
		}
		// Every path must return every value before it is measured.
		List<String> values = multiGet(this.keySets.get(0));
		if (values.size() != keysPerCall || values.contains(null)) {
			throw new IllegalStateException(target + " returned wrong values: " + values.size());
		}
	}

	private ConfigurableApplicationContext start(String client, boolean slotwise, String extra) {
		return new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + this.cluster.nodesProperty(), "spring.data.redis.timeout=30s",
					"slotwise.enabled=" + slotwise, "slotwise.multikey.timeout=30s", "spring.main.banner-mode=off",
					extra)
			.run();
	}

	private void populate() {
		Map<String, String> batch = new LinkedHashMap<>();
		for (int i = 0; i < KEYSPACE; i++) {
			batch.put(key(i), expectedValue(key(i)));
			if (batch.size() == 1000) {
				this.lettuceConnection.sync().mset(batch);
				batch.clear();
			}
		}
	}

	private static String key(int i) {
		return "bench:" + i;
	}

	/**
	 * The value {@link #populate()} stored under a key.
	 */
	static String expectedValue(String key) {
		return "value-" + key.substring("bench:".length()) + "-".repeat(64);
	}

	/**
	 * Returns the next prepared key set (distinct threads may share one; sets are
	 * read-only).
	 */
	List<String> nextKeys() {
		int index = (this.next++ & Integer.MAX_VALUE) % KEY_SETS;
		return this.keySets.get(index);
	}

	List<String> multiGet(List<String> keys) {
		if (this.ideal != null) {
			return this.ideal.multiGet(keys);
		}
		if (this.idealLettuce != null) {
			return this.idealLettuce.multiGet(keys);
		}
		if (this.bytes != null) {
			byte[][] raw = new byte[keys.size()][];
			for (int i = 0; i < raw.length; i++) {
				raw[i] = keys.get(i).getBytes(StandardCharsets.UTF_8);
			}
			List<byte[]> values = this.bytes.stringCommands().mGet(raw);
			List<String> result = new ArrayList<>(values.size());
			for (byte[] value : values) {
				result.add((value != null) ? new String(value, StandardCharsets.UTF_8) : null);
			}
			return result;
		}
		if (!this.raw) {
			return this.template.opsForValue().multiGet(keys);
		}
		try {
			List<KeyValue<String, String>> values = this.lettuceConnection.async()
				.mget(keys.toArray(new String[0]))
				.get(30, TimeUnit.SECONDS);
			List<String> result = new ArrayList<>(values.size());
			for (KeyValue<String, String> value : values) {
				result.add(value.getValueOrElse(null));
			}
			return result;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * The target's own cluster.
	 */
	RedisTestCluster cluster() {
		return this.cluster;
	}

	@Override
	public void close() {
		try {
			if (this.bytes != null) {
				this.bytes.close();
			}
			if (this.context != null) {
				this.context.close();
			}
			if (this.ideal != null) {
				this.ideal.close();
			}
			if (this.idealLettuce != null) {
				this.idealLettuce.close();
			}
			this.lettuceConnection.close();
			this.lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(2));
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
