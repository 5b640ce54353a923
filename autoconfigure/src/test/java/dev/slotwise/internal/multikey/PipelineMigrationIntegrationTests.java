package dev.slotwise.internal.multikey;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import dev.slotwise.internal.metrics.PipelineMeters;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cluster pipelines over Jedis (package {@code dev.slotwise.pipeline}) while a slot
 * moves, held in each state by {@link SlotMigration}: mid-migration the moved keys are
 * answered {@code ASK} and sent again with {@code ASKING}; after the move, with
 * Slotwise's topology still cached, the old owner answers {@code MOVED}. Every result is
 * right and in its place; the servers' own counts show the redirects and the ASKING
 * commands.
 */
@WithRedisCluster(dedicated = true)
class PipelineMigrationIntegrationTests {

	@Test
	void pipelinesFollowAskAndMovedWithResultsInPlace(RedisTestCluster cluster) {
		String tag = "{pipeline-migrating}";
		SlotMigration migration = SlotMigration.of(cluster, tag);
		List<String> migrating = new ArrayList<>();
		List<String> all = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			migrating.add(tag + ":" + i);
			all.add(tag + ":" + i);
			all.add("other:" + i);
		}
		MultiKeyTestSupport.runner("jedis", cluster)
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.run((context) -> {
				try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class)
					.getClusterConnection()) {
					for (String key : all) {
						connection.stringCommands().set(bytes(key), bytes("v-" + key));
					}
					migration.begin();
					migration.moveKeys(migrating.subList(0, 50));
					cluster.resetStats();
					assertPipelineReadsEveryKey(connection, all);
					assertThat(cluster.commandCalls(migration.target(), "asking")).isEqualTo(50);
					assertThat(errors(cluster, migration.source(), "ASK")).isEqualTo(50);

					migration.moveKeys(migrating.subList(50, 100));
					migration.finish();
					cluster.resetStats();
					assertPipelineReadsEveryKey(connection, all);
					assertThat(errors(cluster, migration.source(), "MOVED")).isPositive();
					assertThat(cluster.commandCalls(migration.target(), "asking")).isZero();

					MeterRegistry registry = context.getBean(MeterRegistry.class);
					assertThat(registry.get(PipelineMeters.REDIRECTS).tag("type", "ask").counter().count())
						.isEqualTo(50);
					assertThat(registry.get(PipelineMeters.REDIRECTS).tag("type", "moved").counter().count())
						.isEqualTo(errors(cluster, migration.source(), "MOVED"));
					assertThat(registry.get(PipelineMeters.PIPELINES).tag("outcome", "success").timer().count())
						.isEqualTo(2);
					assertThat(registry.get(PipelineMeters.COMMANDS).summary().totalAmount()).isEqualTo(400);
					assertThat(registry.get(PipelineMeters.NODES).summary().totalAmount())
						.isEqualTo(2.0 * cluster.masters().size());
				}
			});
	}

	/**
	 * A same-slot {@code MGET} whose keys a migration split between the two nodes is
	 * answered {@code TRYAGAIN}; it is sent again after a pause until the move completes
	 * (then the old owner answers {@code MOVED}), and its result lands in its position.
	 */
	@Test
	void tryAgainIsRetriedUntilTheMoveCompletes(RedisTestCluster cluster) {
		String tag = "{pipeline-tryagain}";
		SlotMigration migration = SlotMigration.of(cluster, tag);
		MultiKeyTestSupport.runner("jedis", cluster)
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("slotwise.multikey.max-redirects=8")
			.run((context) -> {
				try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class)
					.getClusterConnection()) {
					connection.stringCommands().set(bytes(tag + "a"), bytes("1"));
					connection.stringCommands().set(bytes(tag + "b"), bytes("2"));
					connection.stringCommands().set(bytes("plain"), bytes("3"));
					migration.begin();
					migration.moveKeys(List.of(tag + "a"));
					cluster.resetStats();
					Thread finisher = new Thread(() -> {
						try {
							// Completes the move once the source has refused the MGET at
							// least once.
							long deadline = System.nanoTime() + 5_000_000_000L;
							while (errors(cluster, migration.source(), "TRYAGAIN") == 0
									&& System.nanoTime() < deadline) {
								Thread.sleep(5);
							}
							migration.moveKeys(List.of(tag + "b"));
							migration.finish();
						}
						catch (InterruptedException ex) {
							Thread.currentThread().interrupt();
						}
					});
					connection.openPipeline();
					connection.stringCommands().get(bytes("plain"));
					connection.stringCommands().mGet(bytes(tag + "a"), bytes(tag + "b"));
					connection.stringCommands().get(bytes("plain"));
					finisher.start();
					List<Object> results = connection.closePipeline();
					finisher.join();
					assertThat(results).hasSize(3);
					assertThat(results.get(0)).isEqualTo(bytes("3"));
					assertThat(results.get(1)).asInstanceOf(InstanceOfAssertFactories.LIST)
						.containsExactly(bytes("1"), bytes("2"));
					assertThat(results.get(2)).isEqualTo(bytes("3"));
					long tryAgains = errors(cluster, migration.source(), "TRYAGAIN");
					assertThat(tryAgains).isPositive();
					assertThat(context.getBean(MeterRegistry.class)
						.get(PipelineMeters.REDIRECTS)
						.tag("type", "tryagain")
						.counter()
						.count()).isEqualTo(tryAgains);
				}
			});
	}

	private static void assertPipelineReadsEveryKey(RedisClusterConnection connection, List<String> keys) {
		connection.openPipeline();
		for (String key : keys) {
			connection.stringCommands().get(bytes(key));
		}
		List<Object> results = connection.closePipeline();
		assertThat(results).hasSize(keys.size());
		for (int i = 0; i < keys.size(); i++) {
			assertThat(results.get(i)).as(keys.get(i)).isEqualTo(bytes("v-" + keys.get(i)));
		}
	}

	/**
	 * The errors of one kind a node replied since its statistics were reset, from
	 * {@code INFO errorstats}.
	 */
	private static long errors(RedisTestCluster cluster, RedisNode node, String kind) {
		String prefix = "errorstat_" + kind + ":count=";
		return cluster.withAdmin(node, (jedis) -> jedis.info("errorstats"))
			.lines()
			.filter((line) -> line.startsWith(prefix))
			.map((line) -> Long.parseLong(line.substring(prefix.length()).trim()))
			.findFirst()
			.orElse(0L);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
