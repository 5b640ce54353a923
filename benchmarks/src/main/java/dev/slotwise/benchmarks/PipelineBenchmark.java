package dev.slotwise.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One caller running 1,000 mixed SET/GET/INCR/HSET/HGET/SADD/EXPIRE commands on random
 * keys across all slots, through the application's {@link StringRedisTemplate}, each
 * variant on its own fresh 3-master cluster:
 * <ul>
 * <li>{@code slotwise-jedis-pipelined}: {@code executePipelined} over Jedis with Slotwise
 * (Spring Data Redis alone refuses to pipeline a Jedis cluster connection);</li>
 * <li>{@code slotwise-jedis-one-by-one} and {@code sdr-jedis-one-by-one}: the same
 * commands one after the other on one connection over Jedis, with Slotwise's pool and
 * with Spring Data Redis's defaults;</li>
 * <li>{@code sdr-lettuce-pipelined}: {@code executePipelined} over Lettuce with Slotwise
 * off.</li>
 * </ul>
 * The tear-down prints what the servers executed per master ({@code INFO commandstats},
 * socket reads) per operation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
public class PipelineBenchmark {

	static final int COMMANDS = 1000;

	private static final int KEYSPACE = 10_000;

	/** The system under test. */
	@Param({ "slotwise-jedis-pipelined", "slotwise-jedis-one-by-one", "sdr-jedis-one-by-one", "sdr-lettuce-pipelined" })
	public String target;

	private RedisTestCluster cluster;

	private ConfigurableApplicationContext context;

	private StringRedisTemplate template;

	private boolean pipelined;

	private final Random random = new Random(42);

	private long operations;

	/** Starts a cluster and the application of the variant. */
	@Setup(Level.Trial)
	public void setUp() {
		this.cluster = RedisTestCluster.start(ClusterShape.DEFAULT);
		String client = this.target.contains("jedis") ? "jedis" : "lettuce";
		this.context = BenchmarkApplication.start(this.cluster, "spring.data.redis.client-type=" + client,
				"slotwise.enabled=" + this.target.startsWith("slotwise"), "spring.data.redis.timeout=30s");
		this.template = this.context.getBean(StringRedisTemplate.class);
		this.pipelined = this.target.endsWith("pipelined");
		if (this.pipelined) {
			// Spring Data Redis alone refuses this over Jedis: "Pipeline is not supported
			// for JedisClusterConnection".
			List<Object> check = this.template.executePipelined((RedisCallback<Object>) (connection) -> {
				connection.stringCommands().set(bytes("check"), bytes("1"));
				connection.stringCommands().incr(bytes("check"));
				return null;
			});
			if (!check.equals(List.of(true, 2L))) {
				throw new IllegalStateException(this.target + " pipelined wrongly: " + check);
			}
		}
		this.cluster.resetStats();
	}

	/** Prints the servers' counts per master and operation, then stops everything. */
	@TearDown(Level.Trial)
	public void tearDown() {
		try {
			StringBuilder report = new StringBuilder(
					"\n[server] " + this.target + ", " + this.operations + " operations of " + COMMANDS + " commands:");
			for (RedisNode master : this.cluster.masters()) {
				long commands = 0;
				for (String command : List.of("set", "get", "incr", "hset", "hget", "sadd", "expire")) {
					commands += this.cluster.commandCalls(master, command);
				}
				long reads = this.cluster.withAdmin(master, (jedis) -> jedis.info("stats"))
					.lines()
					.filter((line) -> line.startsWith("total_reads_processed:"))
					.mapToLong((line) -> Long.parseLong(line.substring("total_reads_processed:".length()).trim()))
					.sum();
				report.append(String.format(" %s: %.1f commands, %.1f socket reads per operation;", master,
						(double) commands / Math.max(1, this.operations),
						(double) reads / Math.max(1, this.operations)));
			}
			System.out.println(report);
			this.context.close();
		}
		finally {
			this.cluster.close();
		}
	}

	/**
	 * One batch of 1,000 commands.
	 * @return the results (pipelined) or the last result, consumed by JMH
	 */
	@Benchmark
	public Object batch() {
		long seed = this.random.nextLong();
		this.operations++;
		if (this.pipelined) {
			return this.template.executePipelined((RedisCallback<Object>) (connection) -> {
				run(connection, seed);
				return null;
			});
		}
		return this.template.execute((RedisCallback<Object>) (connection) -> run(connection, seed));
	}

	private static Object run(RedisConnection connection, long seed) {
		Random random = new Random(seed);
		Object last = null;
		for (int i = 0; i < COMMANDS; i++) {
			int n = random.nextInt(KEYSPACE);
			last = switch (i % 7) {
				case 0 -> connection.stringCommands().set(bytes("s:" + n), bytes("value-" + n));
				case 1 -> connection.stringCommands().get(bytes("s:" + n));
				case 2 -> connection.stringCommands().incr(bytes("c:" + n));
				case 3 -> connection.hashCommands().hSet(bytes("h:" + n), bytes("f"), bytes("value-" + n));
				case 4 -> connection.hashCommands().hGet(bytes("h:" + n), bytes("f"));
				case 5 -> connection.setCommands().sAdd(bytes("set:" + n), bytes("m" + (n % 10)));
				default -> connection.keyCommands().expire(bytes("s:" + n), 3600);
			};
		}
		return last;
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
