package dev.slotwise.internal.observation;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.autoconfigure.SlotwiseObservationAutoConfiguration;
import dev.slotwise.internal.keyspace.ClusterCacheClear;
import dev.slotwise.internal.metrics.MultiKeyMeters;
import dev.slotwise.internal.routing.SlotHash;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.ObservationView;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.observation.LettuceObservationAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With an {@link ObservationRegistry}, what plain Spring Boot observes is still observed
 * with Slotwise: every command the servers run for a cross-slot call over Lettuce is one
 * {@code lettuce} observation, on and off alike; and Slotwise adds one observation per
 * call and per pipeline, with one child per node batch, on both clients.
 */
@WithRedisCluster
class ObservationParityIntegrationTests {

	private static final int CALLS = 20;

	private static final int KEYS = 100;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(SlotwiseAutoConfiguration.class, SlotwiseObservationAutoConfiguration.class,
						DataRedisAutoConfiguration.class, LettuceObservationAutoConfiguration.class))
		.withPropertyValues("slotwise.pool.prewarm=false", "spring.data.redis.timeout=5s");

	@Test
	void everyCommandTheServersRunForCrossSlotCallsOverLettuceIsObservedWithSlotwiseOnAndOff(RedisTestCluster cluster) {
		Map<String, Counts> off = lettuceCounts(cluster, "slotwise.enabled=false");
		Map<String, Counts> on = lettuceCounts(cluster, "slotwise.enabled=true");
		System.out.println("Lettuce observed/executed, Slotwise off: " + off + ", on: " + on);
		for (Map<String, Counts> counts : List.of(off, on)) {
			assertThat(counts.get("MGET").executed()).isGreaterThanOrEqualTo((long) CALLS * (KEYS - 5));
			assertThat(counts.get("MSET").executed()).isGreaterThanOrEqualTo((long) CALLS * (KEYS - 5));
			counts.forEach((command, count) -> assertThat(count.observed()).as(command).isEqualTo(count.executed()));
		}
		assertThat(on.get("MGET").executed()).isEqualTo(off.get("MGET").executed());
		assertThat(on.get("MSET").executed()).isEqualTo(off.get("MSET").executed());
	}

	@Test
	void everyCommandOfAScanStrategyCacheClearOverLettuceIsObservedWithSlotwiseOnAndOff(RedisTestCluster cluster) {
		for (String property : List.of("slotwise.enabled=false", "slotwise.enabled=true")) {
			Recorder recorder = new Recorder();
			ObservationRegistry registry = recorder.registry();
			this.runner.withBean(ObservationRegistry.class, () -> registry)
				.withPropertyValues("spring.data.redis.client-type=lettuce",
						"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), property)
				.run((context) -> {
					assertThat(context).hasNotFailed();
					RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
					try (RedisClusterConnection connection = factory.getClusterConnection()) {
						Map<byte[], byte[]> entries = new LinkedHashMap<>();
						for (byte[] key : keys("observed::", KEYS * 5)) {
							entries.put(key, key);
						}
						connection.stringCommands().mSet(entries);
					}
					RedisCacheManager manager = RedisCacheManager
						.builder(RedisCacheWriter.nonLockingRedisCacheWriter(factory, new ClusterCacheClear(100)))
						.build();
					manager.afterPropertiesSet();
					cluster.resetStats();
					recorder.clear();
					manager.getCache("observed").invalidate();
					// Slotwise's cache-clear strategy (what its cache auto-configuration
					// sets): over plain Spring Data it deletes each page with DEL, over
					// Slotwise the walks UNLINK the keys where they found them. Each
					// command the servers ran is one lettuce observation either way.
					long removals = 0;
					for (String command : List.of("SCAN", "DEL", "UNLINK")) {
						long executed = cluster.masters()
							.stream()
							.mapToLong((master) -> cluster.commandCalls(master, command.toLowerCase()))
							.sum();
						long observed = recorder.awaitCount(Recorder.lettuce(command), executed);
						assertThat(observed).as("%s observed, %s", command, property).isEqualTo(executed);
						removals += command.equals("SCAN") ? 0 : executed;
					}
					assertThat(removals).as("DEL and UNLINK, %s", property).isPositive();
				});
		}
	}

	@Test
	void lettuceCommandsOfACallAreChildrenOfItsNodeBatches(RedisTestCluster cluster) {
		Recorder recorder = new Recorder();
		run("lettuce", cluster, recorder, "slotwise.enabled=true", (connection) -> {
			byte[][] keys = keys("tree:", KEYS);
			connection.stringCommands().mGet(keys);
			List<Observation.Context> calls = recorder.await("slotwise.multikey", 1);
			List<Observation.Context> batches = recorder.await("slotwise.multikey.batch", cluster.masters().size());
			List<Observation.Context> commands = recorder.awaitLettuce("MGET", slots(keys));
			Observation.Context call = calls.get(0);
			assertThat(call.getLowCardinalityKeyValues()).contains(KeyValue.of("command", "mget"),
					KeyValue.of("client", "lettuce"), KeyValue.of("outcome", "success"), KeyValue.of("keys", "11-100"));
			assertThat(batches).allSatisfy((batch) -> assertThat(parent(batch)).isSameAs(call));
			assertThat(commands).allSatisfy((command) -> assertThat(parent(command)).isIn(batches));
			assertThat(batches.stream().mapToInt((batch) -> size(batch)).sum()).isEqualTo(slots(keys));
		});
	}

	@Test
	void reactiveCrossSlotCallsAreObservedWithTheirLettuceCommandsUnderTheirBatches(RedisTestCluster cluster) {
		Recorder recorder = new Recorder();
		ObservationRegistry registry = recorder.registry();
		this.runner.withBean(ObservationRegistry.class, () -> registry)
			.withPropertyValues("spring.data.redis.client-type=lettuce",
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty())
			.run((context) -> {
				ReactiveStringRedisTemplate template = new ReactiveStringRedisTemplate(
						context.getBean(ReactiveRedisConnectionFactory.class));
				List<String> keys = new ArrayList<>();
				for (int i = 0; i < KEYS; i++) {
					keys.add("reactive:" + i);
				}
				assertThat(template.opsForValue().multiGet(keys).block(Duration.ofSeconds(10))).hasSize(KEYS);
				assertThat(template.countExistingKeys(keys).block(Duration.ofSeconds(10))).isZero();
				List<Observation.Context> calls = recorder.await("slotwise.multikey", 2);
				assertThat(calls).extracting((call) -> call.getLowCardinalityKeyValue("command").getValue())
					.containsExactlyInAnyOrder("mget", "exists");
				int slots = slots(keys("reactive:", KEYS));
				List<Observation.Context> batches = recorder.named("slotwise.multikey.batch"::equals);
				assertThat(recorder.awaitLettuce("MGET", slots))
					.allSatisfy((command) -> assertThat(parent(command)).isIn(batches));
				assertThat(recorder.awaitLettuce("EXISTS", slots))
					.allSatisfy((command) -> assertThat(parent(command)).isIn(batches));
			});
	}

	@Test
	void jedisCallsAreObservedOncePerCallWithOneChildPerNodeBatchOnlyWithSlotwise(RedisTestCluster cluster) {
		List<RedisNode> masters = cluster.masters();
		Recorder on = new Recorder();
		run("jedis", cluster, on, "slotwise.enabled=true", (connection) -> {
			byte[][] keys = keys("jedis:", KEYS);
			cluster.resetStats();
			for (int i = 0; i < CALLS; i++) {
				connection.stringCommands().mGet(keys);
			}
			List<Observation.Context> calls = on.await("slotwise.multikey", CALLS);
			List<Observation.Context> batches = on.await("slotwise.multikey.batch", CALLS * masters.size());
			assertThat(calls).allSatisfy((call) -> assertThat(call.getLowCardinalityKeyValues()).contains(
					KeyValue.of("command", "mget"), KeyValue.of("client", "jedis"), KeyValue.of("outcome", "success"),
					KeyValue.of("keys", "11-100")));
			assertThat(batches).allSatisfy((batch) -> assertThat(parent(batch)).isIn(calls));
			long executed = masters.stream().mapToLong((master) -> cluster.commandCalls(master, "mget")).sum();
			assertThat(batches.stream().mapToLong((batch) -> size(batch)).sum()).isEqualTo(executed);
		});
		Recorder off = new Recorder();
		run("jedis", cluster, off, "slotwise.enabled=false", (connection) -> {
			for (int i = 0; i < CALLS; i++) {
				connection.stringCommands().mGet(keys("jedis:", KEYS));
			}
		});
		// Plain Spring Boot observes nothing of Jedis: the observations are what Slotwise
		// adds.
		assertThat(off.named((name) -> name.startsWith("slotwise"))).isEmpty();
	}

	@Test
	void jedisPipelineIsObservedWithItsNodeBatchesAndItsCrossSlotCommandAsChildren(RedisTestCluster cluster) {
		Recorder recorder = new Recorder();
		run("jedis", cluster, recorder, "slotwise.enabled=true", (connection) -> {
			connection.openPipeline();
			for (int i = 0; i < 30; i++) {
				connection.stringCommands().set(bytes("p:" + i), bytes("v" + i));
			}
			connection.stringCommands().mGet(keys("p:", 30));
			connection.closePipeline();
			Observation.Context pipeline = recorder.await("slotwise.pipeline", 1).get(0);
			assertThat(pipeline.getLowCardinalityKeyValues()).contains(KeyValue.of("command", "pipeline"),
					KeyValue.of("client", "jedis"), KeyValue.of("outcome", "success"),
					KeyValue.of("commands", "11-100"));
			List<Observation.Context> batches = recorder.await("slotwise.pipeline.batch", cluster.masters().size());
			assertThat(batches).allSatisfy((batch) -> assertThat(parent(batch)).isSameAs(pipeline));
			assertThat(batches.stream().mapToInt((batch) -> size(batch)).sum()).isEqualTo(30);
			Observation.Context mGet = recorder.await("slotwise.multikey", 1).get(0);
			assertThat(parent(mGet)).isSameAs(pipeline);
		});
	}

	@Test
	void metersAndObservationsBothSeeEachCall(RedisTestCluster cluster) {
		Recorder recorder = new Recorder();
		ObservationRegistry registry = recorder.registry();
		this.runner.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withBean(ObservationRegistry.class, () -> registry)
			.withPropertyValues("spring.data.redis.client-type=jedis",
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class)
					.getClusterConnection()) {
					connection.keyCommands().del(keys("both:", KEYS));
				}
				assertThat(recorder.await("slotwise.multikey", 1)).singleElement()
					.satisfies((call) -> assertThat(call.getLowCardinalityKeyValue("command").getValue())
						.isEqualTo("del"));
				assertThat(context.getBean(MeterRegistry.class)
					.get(MultiKeyMeters.CALLS)
					.tag("command", "del")
					.timer()
					.count()).isEqualTo(1);
			});
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void observationTimersAndSlotwiseMetersShareAPrometheusRegistryWithoutConflict(String client,
			RedisTestCluster cluster) {
		PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)
			.throwExceptionOnRegistrationFailure();
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
		this.runner.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class))
			.withBean(PrometheusMeterRegistry.class, () -> meters)
			.withBean(ObservationRegistry.class, () -> registry)
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class)
					.getClusterConnection()) {
					connection.stringCommands().mGet(keys("prom:", KEYS));
					if (client.equals("jedis")) {
						connection.openPipeline();
						connection.stringCommands().get(bytes("prom:1"));
						connection.stringCommands().get(bytes("prom:2"));
						connection.closePipeline();
					}
				}
				Thread.sleep(200);
				String scrape = meters.scrape();
				assertThat(scrape).contains("slotwise_multikey_seconds_count{",
						"slotwise_multikey_batch_seconds_count{", "slotwise_multikey_calls_seconds_count{");
				if (client.equals("jedis")) {
					assertThat(scrape).contains("slotwise_pipeline_seconds_count{",
							"slotwise_pipeline_batch_seconds_count{", "slotwise_pipeline_pipelines_seconds_count{");
				}
				else {
					assertThat(scrape).contains("lettuce_seconds_count{");
				}
			});
	}

	@Test
	void springBootsPredicateTurnsLettucesPerCommandObservationsOffAndLeavesSlotwises(RedisTestCluster cluster) {
		Recorder recorder = new Recorder();
		this.runner.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
			.withBean(Recorder.class, () -> recorder)
			.withPropertyValues("spring.data.redis.client-type=lettuce",
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(),
					"management.observations.enable.lettuce=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class)
					.getClusterConnection()) {
					connection.stringCommands().mGet(keys("predicate:", KEYS));
				}
				assertThat(recorder.await("slotwise.multikey", 1)).hasSize(1);
				assertThat(recorder.named("lettuce"::equals)).isEmpty();
			});
	}

	@Test
	void observationsDisabledLeavesLettucesOwnObservationsInPlace(RedisTestCluster cluster) {
		Recorder recorder = new Recorder();
		run("lettuce", cluster, recorder, "slotwise.observations.enabled=false", (connection) -> {
			byte[][] keys = keys("quiet:", KEYS);
			connection.stringCommands().mGet(keys);
			assertThat(recorder.awaitLettuce("MGET", slots(keys))).hasSize(slots(keys));
			assertThat(recorder.named((name) -> name.startsWith("slotwise"))).isEmpty();
		});
	}

	/**
	 * Runs {@value #CALLS} cross-slot {@code multiGet} and {@code multiSet} of
	 * {@value #KEYS} keys over Lettuce and returns, per command, how many the masters ran
	 * and how many {@code lettuce} observations ended.
	 */
	private Map<String, Counts> lettuceCounts(RedisTestCluster cluster, String property) {
		Map<String, Counts> counts = new LinkedHashMap<>();
		List<RedisNode> masters = cluster.masters();
		Recorder recorder = new Recorder();
		run("lettuce", cluster, recorder, property, (connection) -> {
			byte[][] keys = keys("parity:", KEYS);
			Map<byte[], byte[]> tuples = new LinkedHashMap<>();
			for (byte[] key : keys) {
				tuples.put(key, key);
			}
			cluster.resetStats();
			recorder.clear();
			for (int i = 0; i < CALLS; i++) {
				connection.stringCommands().mSet(tuples);
				connection.stringCommands().mGet(keys);
			}
			for (String command : List.of("MGET", "MSET")) {
				long executed = masters.stream()
					.mapToLong((master) -> cluster.commandCalls(master, command.toLowerCase()))
					.sum();
				long observed = recorder.awaitCount(Recorder.lettuce(command), executed);
				counts.put(command, new Counts(executed, observed));
			}
		});
		return counts;
	}

	private void run(String client, RedisTestCluster cluster, Recorder recorder, String property, ConnectionTest test) {
		ObservationRegistry registry = recorder.registry();
		this.runner.withBean(ObservationRegistry.class, () -> registry)
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), property)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class)
					.getClusterConnection()) {
					test.accept(connection);
				}
			});
	}

	private static Observation.Context parent(Observation.Context context) {
		ObservationView parent = context.getParentObservation();
		assertThat(parent).as("parent of %s", context.getName()).isNotNull();
		return (Observation.Context) parent.getContextView();
	}

	private static int size(Observation.Context context) {
		KeyValue size = context.getHighCardinalityKeyValue("slotwise.size");
		assertThat(size).isNotNull();
		return Integer.parseInt(size.getValue());
	}

	private static byte[][] keys(String prefix, int count) {
		byte[][] keys = new byte[count][];
		for (int i = 0; i < count; i++) {
			keys[i] = bytes(prefix + i);
		}
		return keys;
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static int slots(byte[][] keys) {
		Set<Integer> slots = new HashSet<>();
		for (byte[] key : keys) {
			slots.add(SlotHash.slot(key));
		}
		return slots.size();
	}

	private record Counts(long executed, long observed) {
	}

	@FunctionalInterface
	private interface ConnectionTest {

		void accept(RedisClusterConnection connection) throws Exception;

	}

	/**
	 * Records every observation that stops. Lettuce stops its observations on its event
	 * loop just after the reply completes the call, so counts are awaited.
	 */
	static final class Recorder implements ObservationHandler<Observation.Context> {

		private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

		@Override
		public void onStop(Observation.Context context) {
			this.stopped.add(context);
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

		ObservationRegistry registry() {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(this);
			return registry;
		}

		void clear() {
			this.stopped.clear();
		}

		List<Observation.Context> named(Predicate<String> name) {
			return this.stopped.stream().filter((context) -> name.test(context.getName())).toList();
		}

		List<Observation.Context> await(String name, int count) throws InterruptedException {
			awaitCount((context) -> name.equals(context.getName()), count);
			List<Observation.Context> found = named(name::equals);
			assertThat(found).as(name).hasSize(count);
			return found;
		}

		List<Observation.Context> awaitLettuce(String operation, int count) throws InterruptedException {
			awaitCount(lettuce(operation), count);
			List<Observation.Context> found = this.stopped.stream().filter(lettuce(operation)).toList();
			assertThat(found).as("lettuce " + operation).hasSize(count);
			return found;
		}

		/**
		 * Matches Lettuce's observations of one command (the connection handshake's are
		 * observed too).
		 */
		static Predicate<Observation.Context> lettuce(String operation) {
			return (context) -> "lettuce".equals(context.getName())
					&& operation.equals(context.getLowCardinalityKeyValue("db.operation") != null
							? context.getLowCardinalityKeyValue("db.operation").getValue() : null);
		}

		long awaitCount(Predicate<Observation.Context> filter, long expected) throws InterruptedException {
			long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
			long count = this.stopped.stream().filter(filter).count();
			while (count < expected && System.nanoTime() < deadline) {
				Thread.sleep(20);
				count = this.stopped.stream().filter(filter).count();
			}
			// A moment more, so that observations beyond the expected count would be seen
			// too.
			Thread.sleep(100);
			return this.stopped.stream().filter(filter).count();
		}

	}

}
