package dev.slotwise.benchmarks;

import java.util.concurrent.TimeUnit;

import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisTestCluster;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * GET throughput of 8 threads through {@link StringRedisTemplate} over Jedis, with three
 * pool configurations in one run: Spring Boot's defaults (Slotwise off), Slotwise's
 * defaults, and Slotwise with validation on borrow and return (what the field report
 * started from). The tear-down prints the PINGs per GET the servers counted.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 5, time = 3)
@Threads(8)
public class PoolThroughputBenchmark {

	/** The pool configuration under test. */
	@Param({ "boot-defaults", "slotwise-defaults", "validate-on-borrow-and-return" })
	public String pool;

	private RedisTestCluster cluster;

	private ConfigurableApplicationContext context;

	private StringRedisTemplate template;

	@Setup(Level.Trial)
	public void start() {
		this.cluster = RedisTestCluster.start(ClusterShape.DEFAULT);
		String[] variant = switch (this.pool) {
			case "boot-defaults" -> new String[] { "slotwise.enabled=false" };
			case "slotwise-defaults" -> new String[0];
			case "validate-on-borrow-and-return" ->
				new String[] { "slotwise.pool.test-on-borrow=true", "slotwise.pool.test-on-return=true" };
			default -> throw new IllegalArgumentException("Unknown pool variant " + this.pool);
		};
		String[] properties = new String[variant.length + 1];
		properties[0] = "spring.data.redis.client-type=jedis";
		System.arraycopy(variant, 0, properties, 1, variant.length);
		this.context = BenchmarkApplication.start(this.cluster, properties);
		this.template = this.context.getBean(StringRedisTemplate.class);
		this.template.opsForValue().set("bench:pool", "value");
		this.cluster.resetStats();
	}

	@Benchmark
	public String get() {
		return this.template.opsForValue().get("bench:pool");
	}

	@TearDown(Level.Trial)
	public void stop() {
		long gets = this.cluster.totalCommandCalls("get");
		long pings = this.cluster.totalCommandCalls("ping");
		System.out.printf("%n[%s] server counted %d GETs and %d PINGs: %.2f PINGs per GET%n", this.pool, gets, pings,
				(gets == 0) ? 0.0 : (double) pings / gets);
		this.context.close();
		this.cluster.close();
	}

}
