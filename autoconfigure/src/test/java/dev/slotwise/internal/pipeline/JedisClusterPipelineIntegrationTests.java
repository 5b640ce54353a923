package dev.slotwise.internal.pipeline;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

import dev.slotwise.internal.routing.SlotHash;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static dev.slotwise.internal.pipeline.PipelineTestSupport.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Pipelines on a real cluster over Jedis: results equal the same commands one by one and
 * Spring Data Redis's own pipelines over Lettuce; errors in position; refusals when
 * queued; a paused node; what the servers executed.
 */
@WithRedisCluster
class JedisClusterPipelineIntegrationTests {

	@Test
	void randomPipelinesEqualOneByOneAndLettucePipelines(RedisTestCluster cluster) {
		Random random = new Random(11);
		int[] sizes = { 1, 1 + random.nextInt(10), 1 + random.nextInt(100), 1 + random.nextInt(1000),
				1000 + random.nextInt(4001), 5000 };
		PipelineTestSupport.runner("jedis", cluster)
			.run((jedisContext) -> PipelineTestSupport.runner("lettuce", cluster)
				.withPropertyValues("slotwise.enabled=false")
				.run((lettuceContext) -> {
					try (RedisClusterConnection jedis = connection(jedisContext);
							RedisClusterConnection lettuce = connection(lettuceContext)) {
						for (int size : sizes) {
							List<PipelineTestSupport.Op> ops = PipelineTestSupport.randomOps(random, size);
							cluster.reset();
							List<Object> pipelined = PipelineTestSupport.pipelined(jedis, ops);
							cluster.reset();
							List<Object> oneByOne = PipelineTestSupport.oneByOne(jedis, ops);
							cluster.reset();
							List<Object> overLettuce = PipelineTestSupport.pipelined(lettuce, ops);
							assertThat(pipelined).as("%d commands", size).hasSameSizeAs(oneByOne);
							for (int i = 0; i < pipelined.size(); i++) {
								Object actual = PipelineTestSupport.comparable(pipelined.get(i));
								assertThat(actual).as("result %d of %d (%s)", i, size, ops)
									.isEqualTo(PipelineTestSupport.comparable(oneByOne.get(i)));
								assertThat(actual).as("result %d of %d vs Lettuce", i, size)
									.isEqualTo(PipelineTestSupport.comparable(overLettuce.get(i)));
							}
						}
					}
				}));
	}

	@Test
	void executePipelinedThroughTheTemplateReturnsConvertedResults(RedisTestCluster cluster) {
		PipelineTestSupport.runner("jedis", cluster).run((context) -> {
			StringRedisTemplate template = new StringRedisTemplate(context.getBean(RedisConnectionFactory.class));
			List<Object> results = template.executePipelined((RedisCallback<Object>) (connection) -> {
				for (int i = 0; i < 50; i++) {
					connection.stringCommands().set(bytes("k" + i), bytes("v" + i));
					connection.stringCommands().get(bytes("k" + i));
					connection.stringCommands().incr(bytes("n" + i));
				}
				return null;
			});
			List<Object> expected = new ArrayList<>();
			for (int i = 0; i < 50; i++) {
				expected.addAll(List.of(true, "v" + i, 1L));
			}
			assertThat(results).containsExactlyElementsOf(expected);
		});
	}

	@Test
	void errorRepliesFailThePipelineWithEveryOtherResultInPlace(RedisTestCluster cluster) {
		withConnection(cluster, (connection) -> {
			connection.stringCommands().set(bytes("str"), bytes("x"));
			connection.openPipeline();
			connection.stringCommands().set(bytes("a"), bytes("va"));
			connection.hashCommands().hGet(bytes("str"), bytes("f"));
			connection.hashCommands().hMSet(bytes("str"), Map.of(bytes("f"), bytes("v")));
			connection.stringCommands().get(bytes("a"));
			connection.hashCommands().hMSet(bytes("h"), Map.of(bytes("f"), bytes("v")));
			connection.listCommands().lSet(bytes("no-such-list"), 0, bytes("v"));
			connection.stringCommands().incr(bytes("counter"));
			connection.keyCommands().rename(bytes("{r}a"), bytes("{r}b"));
			connection.hashCommands().hGet(bytes("h"), bytes("f"));
			assertThatExceptionOfType(RedisPipelineException.class).isThrownBy(connection::closePipeline)
				.satisfies((ex) -> {
					List<Object> results = ex.getPipelineResult();
					assertThat(results).hasSize(8);
					assertThat(results.get(0)).isEqualTo(true);
					assertThat(results.get(1)).isInstanceOf(Exception.class)
						.extracting((error) -> ((Exception) error).getMessage())
						.asString()
						.contains("WRONGTYPE");
					assertThat(results.get(2)).isInstanceOf(Exception.class)
						.extracting((error) -> ((Exception) error).getMessage())
						.asString()
						.contains("WRONGTYPE");
					assertThat(results.get(3)).isEqualTo(bytes("va"));
					// the successful hMSet has no entry, as in Spring Data Redis's own
					// pipelines
					assertThat(results.get(4)).isInstanceOf(Exception.class)
						.extracting((error) -> ((Exception) error).getMessage())
						.asString()
						.contains("no such key");
					assertThat(results.get(5)).isEqualTo(1L);
					assertThat(results.get(6)).isInstanceOf(Exception.class)
						.extracting((error) -> ((Exception) error).getMessage())
						.asString()
						.contains("no such key");
					assertThat(results.get(7)).isEqualTo(bytes("v"));
				});
			assertThat(connection.stringCommands().get(bytes("counter"))).isEqualTo(bytes("1"));
		});
	}

	@Test
	void commandsThatCannotBePipelinedOnAClusterAreRefusedWhenQueued(RedisTestCluster cluster) {
		withConnection(cluster, (connection) -> {
			connection.openPipeline();
			connection.stringCommands().set(bytes("kept"), bytes("v"));
			assertRefused(() -> connection.keyCommands().keys(bytes("*")), "keys");
			assertRefused(() -> connection.keyCommands().scan(org.springframework.data.redis.core.ScanOptions.NONE),
					"scan");
			assertRefused(() -> connection.listCommands().bLPop(1, bytes("l")), "bLPop");
			assertRefused(() -> connection.setCommands().sInter(bytes("a"), bytes("b")), "sInter");
			assertRefused(() -> connection.serverCommands().flushAll(), "flushAll");
			assertRefused(() -> connection.scriptingCommands().scriptFlush(), "scriptFlush");
			assertRefused(
					() -> connection.stringCommands().mSetNX(Map.of(bytes("a"), bytes("1"), bytes("b"), bytes("2"))),
					"mSetNX");
			assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
				.isThrownBy(() -> connection.execute("FLUSHALL"))
				.withMessageContaining("execute(\"FLUSHALL\", …) cannot be pipelined");
			assertThatExceptionOfType(InvalidDataAccessApiUsageException.class).isThrownBy(connection::multi)
				.withMessageContaining("MULTI");
			assertThat(connection.closePipeline()).containsExactly(true);
		});
	}

	private static void assertRefused(Runnable call, String method) {
		assertThatExceptionOfType(InvalidDataAccessApiUsageException.class).isThrownBy(call::run)
			.withMessageContaining("." + method + " cannot be pipelined on a Redis Cluster");
	}

	@Test
	void commandsRunOnTheMasterOfTheirSlotInFewReads(RedisTestCluster cluster) {
		withConnection(cluster, (connection) -> {
			int commands = 3000;
			Map<RedisNode, Long> expectedSets = new HashMap<>();
			connection.openPipeline();
			for (int i = 0; i < commands; i++) {
				byte[] key = bytes("key:" + i);
				connection.stringCommands().set(key, bytes("v"));
				connection.stringCommands().get(key);
				expectedSets.merge(cluster.masterServingSlot(SlotHash.slot(key)), 1L, Long::sum);
			}
			cluster.resetStats();
			List<Object> results = connection.closePipeline();
			assertThat(results).hasSize(2 * commands);
			for (RedisNode master : cluster.masters()) {
				long sets = cluster.commandCalls(master, "set");
				assertThat(sets).as("SETs on %s", master).isEqualTo(expectedSets.get(master));
				assertThat(cluster.commandCalls(master, "get")).as("GETs on %s", master).isEqualTo(sets);
				// Pipelined: the server reads the node's 2,000-odd commands in a handful
				// of socket reads.
				long reads = readsProcessed(cluster, master);
				assertThat(reads).as("socket reads on %s for %d commands", master, 2 * sets).isLessThan(sets / 5);
			}
		});
	}

	private static long readsProcessed(RedisTestCluster cluster, RedisNode node) {
		return cluster.withAdmin(node, (jedis) -> jedis.info("stats"))
			.lines()
			.filter((line) -> line.startsWith("total_reads_processed:"))
			.map((line) -> Long.parseLong(line.substring("total_reads_processed:".length()).trim()))
			.findFirst()
			.orElseThrow();
	}

	@Test
	void aNodePausedPastTheTimeoutFailsThePipelineNamingItAndItsCommands(RedisTestCluster cluster) {
		PipelineTestSupport.runner("jedis", cluster)
			.withPropertyValues("spring.data.redis.timeout=500ms")
			.run((context) -> {
				try (RedisClusterConnection connection = connection(context)) {
					RedisNode paused = cluster.masters().get(1);
					List<String> keysOnPaused = new ArrayList<>();
					connection.openPipeline();
					for (int i = 0; i < 300; i++) {
						byte[] key = bytes("p:" + i);
						connection.stringCommands().set(key, bytes("v"));
						if (cluster.masterServingSlot(SlotHash.slot(key)).equals(paused)) {
							keysOnPaused.add("p:" + i);
						}
					}
					cluster.withAdmin(paused, (jedis) -> jedis.clientPause(2000));
					long start = System.nanoTime();
					try {
						assertThatExceptionOfType(RedisConnectionFailureException.class)
							.isThrownBy(connection::closePipeline)
							.withMessageContaining("Node " + paused.address() + " failed")
							.withMessageContaining("its " + keysOnPaused.size() + " commands have no reply")
							.withMessageContaining("set#");
						assertThat(System.nanoTime() - start).isLessThan(1_900_000_000L);
					}
					finally {
						long left = 2_300_000_000L - (System.nanoTime() - start);
						Thread.sleep(Math.max(0, left / 1_000_000));
					}
					// The other masters' commands ran.
					long setOnOthers = cluster.masters()
						.stream()
						.filter((master) -> !master.equals(paused))
						.mapToLong((master) -> cluster.commandCalls(master, "set"))
						.sum();
					assertThat(setOnOthers).isEqualTo(300 - keysOnPaused.size());
				}
			});
	}

	private static RedisClusterConnection connection(
			org.springframework.boot.test.context.assertj.AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		return context.getBean(RedisConnectionFactory.class).getClusterConnection();
	}

	private static void withConnection(RedisTestCluster cluster, Consumer<RedisClusterConnection> test) {
		ApplicationContextRunner runner = PipelineTestSupport.runner("jedis", cluster);
		runner.run((context) -> {
			try (RedisClusterConnection connection = connection(context)) {
				test.accept(connection);
			}
		});
	}

}
