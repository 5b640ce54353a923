package dev.slotwise.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.util.SafeEncoder;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.listener.PatternTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every feature of Slotwise's cluster connections switched off alone, on both clients:
 * the feature switched off behaves as plain Spring Data Redis, and every other feature
 * still works (issue 27: switching off the multi-key commands used to switch off
 * pipelining, key walks and cluster pub/sub with them). Each run also has Slotwise off
 * entirely ({@code slotwise.enabled=false}) as the baseline, in which no feature is
 * active.
 * <p>
 * What each probe looks at: multi-key commands over Jedis, the commands the servers
 * executed for a cross-slot {@code multiGet} (one {@code GET} per key from Spring Data
 * Redis, {@code MGET}s from the engine); over Lettuce both send per-slot {@code MGET}s,
 * so the probe reads which string commands the connection hands out. Pipelining over
 * Jedis: whether {@code executePipelined} runs and the servers executed its commands. Key
 * walks: whether a scan across the cluster returns every key (Spring Data Redis refuses
 * it over Jedis) through Slotwise's cursor. Pub/sub: on how many masters a keyspace-event
 * pattern is subscribed ({@code PUBSUB NUMPAT}). Transactions: whether a
 * {@code MULTI}/{@code EXEC} on one slot runs (the master executed one {@code EXEC}) or
 * Spring Data Redis refuses it. The near cache (on in every variant but its own and
 * {@code slotwise.enabled=false}): whether repeated reads of a covered key reach the
 * servers every time.
 */
@WithRedisCluster
class FeatureMatrixIntegrationTests {

	private static final int KEYS = 30;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
		.withPropertyValues("slotwise.pool.prewarm=false");

	static Stream<Arguments> variants() {
		List<Arguments> variants = new ArrayList<>();
		for (String client : List.of("jedis", "lettuce")) {
			variants.add(Arguments.of(client, null));
			for (Feature feature : Feature.values()) {
				variants.add(Arguments.of(client, feature));
			}
			variants.add(Arguments.of(client, Feature.ALL));
		}
		return variants.stream();
	}

	@ParameterizedTest(name = "{0}, off: {1}")
	@MethodSource("variants")
	void eachFeatureWorksWithAnyOtherSwitchedOff(String client, Feature off, RedisTestCluster cluster) {
		// The near cache is off by default (it changes what a read may return): on here,
		// on keys of its own, so that switching it off is a variant like the others.
		List<String> properties = new ArrayList<>(List.of("spring.data.redis.client-type=" + client,
				"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "slotwise.near-cache.enabled=true",
				"slotwise.near-cache.key-prefixes=near:"));
		if (off != null) {
			properties.add(off.property + "=false");
		}
		this.runner.withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
			assertThat(context).hasNotFailed();
			Set<Feature> expected = EnumSet.of(Feature.MULTIKEY, Feature.PIPELINE, Feature.KEYSPACE, Feature.PUBSUB,
					Feature.TRANSACTIONS, Feature.NEAR_CACHE);
			if (off == Feature.ALL) {
				expected.clear();
			}
			else if (off != null) {
				expected.remove(off);
			}
			if (client.equals("lettuce")) {
				// Over Lettuce, Spring Data Redis pipelines on a cluster itself: the
				// probe finds it working either way.
				expected.add(Feature.PIPELINE);
			}
			assertThat(activeFeatures(context, client, cluster)).as("features active with %s off", off)
				.containsExactlyInAnyOrderElementsOf(expected);
		});
	}

	private Set<Feature> activeFeatures(ApplicationContext context, String client, RedisTestCluster cluster)
			throws Exception {
		Set<Feature> active = EnumSet.noneOf(Feature.class);
		StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
		cluster.reset();
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < KEYS; i++) {
			keys.add("matrix:" + i);
			template.opsForValue().set("matrix:" + i, "v" + i);
		}
		if (multiKeyActive(template, keys, client, cluster)) {
			active.add(Feature.MULTIKEY);
		}
		if (pipelineActive(template, cluster)) {
			active.add(Feature.PIPELINE);
		}
		if (keyWalksActive(template, client)) {
			active.add(Feature.KEYSPACE);
		}
		if (clusterPubSubActive(context.getBean(RedisConnectionFactory.class), cluster)) {
			active.add(Feature.PUBSUB);
		}
		if (transactionsActive(template, cluster)) {
			active.add(Feature.TRANSACTIONS);
		}
		if (nearCacheActive(template, cluster)) {
			active.add(Feature.NEAR_CACHE);
		}
		return active;
	}

	/**
	 * Whether repeated reads of a covered key stay in memory: once tracking is up (read
	 * for a while first), ten reads reach the servers fewer than ten times.
	 */
	private boolean nearCacheActive(StringRedisTemplate template, RedisTestCluster cluster) throws Exception {
		template.opsForValue().set("near:probe", "v");
		for (int i = 0; i < 40; i++) {
			template.opsForValue().get("near:probe");
			Thread.sleep(50);
		}
		cluster.resetStats();
		for (int i = 0; i < 10; i++) {
			assertThat(template.opsForValue().get("near:probe")).isEqualTo("v");
		}
		return cluster.totalCommandCalls("get") < 10;
	}

	private boolean transactionsActive(StringRedisTemplate template, RedisTestCluster cluster) {
		cluster.resetStats();
		try {
			List<Object> results = template.execute(new SessionCallback<List<Object>>() {

				@Override
				@SuppressWarnings("unchecked")
				public <K, V> List<Object> execute(RedisOperations<K, V> operations) {
					RedisOperations<String, String> ops = (RedisOperations<String, String>) operations;
					ops.multi();
					ops.opsForValue().set("{tx}a", "1");
					ops.opsForValue().set("{tx}b", "2");
					return ops.exec();
				}

			});
			assertThat(results).containsExactly(true, true);
			assertThat(masterCalls(cluster, "exec")).isOne();
			return true;
		}
		catch (RuntimeException ex) {
			assertThat(ex).hasMessageContaining("MULTI is currently not supported in cluster mode");
			assertThat(masterCalls(cluster, "multi")).isZero();
			return false;
		}
	}

	private boolean multiKeyActive(StringRedisTemplate template, List<String> keys, String client,
			RedisTestCluster cluster) {
		cluster.resetStats();
		List<String> values = template.opsForValue().multiGet(keys);
		assertThat(values).hasSize(KEYS).allSatisfy((value) -> assertThat(value).startsWith("v"));
		if (client.equals("jedis")) {
			long gets = masterCalls(cluster, "get");
			long mgets = masterCalls(cluster, "mget");
			// Either the engine's per-slot MGETs or Spring Data Redis's GET per key,
			// never a mix.
			assertThat(gets == 0 && mgets > 0 || gets == KEYS && mgets == 0).as("GET %d, MGET %d", gets, mgets)
				.isTrue();
			return mgets > 0;
		}
		return Boolean.TRUE.equals(
				template.execute((RedisCallback<Boolean>) (connection) -> String.valueOf(connection.stringCommands())
					// Layers name the layer behind them: "Slotwise near cache Slotwise
					// multi-key ...".
					.contains("Slotwise multi-key")));
	}

	private boolean pipelineActive(StringRedisTemplate template, RedisTestCluster cluster) {
		cluster.resetStats();
		try {
			List<Object> results = template.executePipelined((RedisCallback<Object>) (connection) -> {
				connection.stringCommands().set(SafeEncoder.encode("pipe:{a}"), SafeEncoder.encode("1"));
				connection.stringCommands().set(SafeEncoder.encode("pipe:{b}"), SafeEncoder.encode("2"));
				return null;
			});
			assertThat(results).containsExactly(true, true);
			assertThat(masterCalls(cluster, "set")).isEqualTo(2);
			return true;
		}
		catch (RuntimeException ex) {
			assertThat(ex).hasMessageContaining("Pipeline is not supported");
			assertThat(masterCalls(cluster, "set")).isZero();
			return false;
		}
	}

	private boolean keyWalksActive(StringRedisTemplate template, String client) {
		try {
			String cursorType = template.execute((RedisCallback<String>) (connection) -> {
				try (Cursor<byte[]> cursor = connection.keyCommands()
					.scan(ScanOptions.scanOptions().match("matrix:*").count(10).build())) {
					Set<String> found = new HashSet<>();
					cursor.forEachRemaining((key) -> found.add(SafeEncoder.encode(key)));
					assertThat(found).hasSize(KEYS);
					return cursor.getClass().getName();
				}
			});
			// Over Lettuce, Spring Data Redis's cursor walks the nodes one after another;
			// Slotwise's in parallel.
			return cursorType.startsWith("dev.slotwise.");
		}
		catch (RuntimeException ex) {
			assertThat(client).isEqualTo("jedis");
			assertThat(ex).hasMessageContaining("Scan is not supported across multiple nodes");
			return false;
		}
	}

	private boolean clusterPubSubActive(RedisConnectionFactory factory, RedisTestCluster cluster) throws Exception {
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		container.setConnectionFactory(factory);
		container.addMessageListener((message, pattern) -> {
		}, new PatternTopic("__keyevent@0__:*"));
		container.afterPropertiesSet();
		container.start();
		try {
			List<RedisNode> masters = cluster.masters();
			long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
			long subscribed = 0;
			while (System.nanoTime() < deadline) {
				subscribed = masters.stream().filter((master) -> numPat(cluster, master) > 0).count();
				if (subscribed == masters.size()) {
					break;
				}
				Thread.sleep(50);
			}
			long total = cluster.nodes().stream().filter((node) -> numPat(cluster, node) > 0).count();
			// Spring Data Redis subscribes on one node; Slotwise on every master.
			assertThat(total == 1 || subscribed == masters.size()).as("%d nodes subscribed", total).isTrue();
			return subscribed == masters.size() && masters.size() > 1;
		}
		finally {
			container.stop();
			container.destroy();
		}
	}

	/** Calls on masters only: replicas count the writes they replicate too. */
	private static long masterCalls(RedisTestCluster cluster, String command) {
		return cluster.masters().stream().mapToLong((master) -> cluster.commandCalls(master, command)).sum();
	}

	private static long numPat(RedisTestCluster cluster, RedisNode node) {
		Object reply = cluster.withAdmin(node, (jedis) -> jedis.sendCommand(Protocol.Command.PUBSUB, "NUMPAT"));
		return (reply instanceof Long count) ? count : 0;
	}

	enum Feature {

		MULTIKEY("slotwise.multikey.enabled"), PIPELINE("slotwise.pipeline.enabled"),
		KEYSPACE("slotwise.keyspace.enabled"), PUBSUB("slotwise.pubsub.enabled"),
		TRANSACTIONS("slotwise.transactions.enabled"), NEAR_CACHE("slotwise.near-cache.enabled"),
		ALL("slotwise.enabled");

		private final String property;

		Feature(String property) {
			this.property = property;
		}

	}

}
