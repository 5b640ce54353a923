package dev.slotwise.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Time of the first 100 GETs (spread over every master) right after an application
 * starts, with and without pre-warm, next to the same 100 GETs on an application that has
 * been running (steady state). Each measured iteration of the first two variants gets a
 * freshly started application. JMH scores the whole batch; the trial's tear-down also
 * prints the median of the individual requests, which is what the pre-warm target is
 * about (a batch time also carries one-off pauses of a freshly started application, such
 * as its first collections).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 3, batchSize = 1)
@Measurement(iterations = 25, batchSize = 1)
public class FirstRequestsBenchmark {

	/**
	 * Whether the application has just started (with or without pre-warm) or has been
	 * running. A diagnostic fourth variant starts with pre-warm and waits a second before
	 * the batch: it tells the cost of what a freshly started JVM does in the background
	 * (JIT compiler threads compiling start-up code on the same cores) from the cost of
	 * anything the requests themselves do for the first time.
	 */
	@Param({ "prewarm", "no-prewarm", "steady-state", "prewarm-settled" })
	public String start;

	private RedisTestCluster cluster;

	private ConfigurableApplicationContext context;

	private StringRedisTemplate template;

	private static double percentile(List<Long> nanos, int percentile) {
		if (nanos.isEmpty()) {
			return Double.NaN;
		}
		List<Long> sorted = new ArrayList<>(nanos);
		Collections.sort(sorted);
		int index = Math.min(sorted.size() - 1, (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1);
		return sorted.get(Math.max(0, index)) / 1000.0;
	}

	private final List<String> keys = IntStream.range(0, 100).mapToObj((i) -> "bench:first:" + i).toList();

	@Setup(Level.Trial)
	public void startCluster() {
		this.cluster = RedisTestCluster.start(ClusterShape.DEFAULT);
		if (this.start.equals("steady-state")) {
			startApplication(true);
			for (int i = 0; i < 20; i++) {
				this.keys.forEach((key) -> this.template.opsForValue().get(key));
			}
		}
	}

	@Setup(Level.Iteration)
	public void startApplicationPerIteration() throws InterruptedException {
		if (!this.start.equals("steady-state")) {
			startApplication(!this.start.equals("no-prewarm"));
		}
		if (this.start.equals("prewarm-settled")) {
			Thread.sleep(1000);
		}
	}

	private void startApplication(boolean prewarm) {
		this.context = BenchmarkApplication.start(this.cluster, "spring.data.redis.client-type=jedis",
				"slotwise.pool.prewarm=" + prewarm);
		this.template = this.context.getBean(StringRedisTemplate.class);
	}

	/**
	 * Per-request latencies (ns) of every measured batch, and of the first request of
	 * each batch.
	 */
	private final List<Long> requestNanos = new ArrayList<>();

	private final List<Long> firstRequestNanos = new ArrayList<>();

	@Benchmark
	public void first100Gets(Blackhole blackhole) {
		long previous = System.nanoTime();
		boolean first = true;
		for (String key : this.keys) {
			blackhole.consume(this.template.opsForValue().get(key));
			long now = System.nanoTime();
			this.requestNanos.add(now - previous);
			if (first) {
				this.firstRequestNanos.add(now - previous);
				first = false;
			}
			previous = now;
		}
	}

	@TearDown(Level.Iteration)
	public void stopApplicationPerIteration() {
		if (!this.start.equals("steady-state")) {
			this.context.close();
		}
	}

	@TearDown(Level.Trial)
	public void stopCluster() {
		// Warm-up batches are included; with 3 warm-up and 25 measured iterations they do
		// not move the median.
		System.out.printf(
				"%n[%s] per-request latency over %d requests: p50 %.1f us, p90 %.1f us, p99 %.1f us; "
						+ "first request of each batch: p50 %.1f us%n",
				this.start, this.requestNanos.size(), percentile(this.requestNanos, 50),
				percentile(this.requestNanos, 90), percentile(this.requestNanos, 99),
				percentile(this.firstRequestNanos, 50));
		if (this.start.equals("steady-state")) {
			this.context.close();
		}
		this.cluster.close();
	}

}
