package dev.slotwise.benchmarks;

import java.util.List;
import java.util.concurrent.TimeUnit;

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

/**
 * Throughput of 8 callers each running {@code multiGet} of 100 random cross-slot keys,
 * for every system under test on a real 3-master cluster.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(8)
public class MultiGetThroughputBenchmark {

	/**
	 * The system under test: sdr-jedis, sdr-lettuce, lettuce-async, slotwise-jedis,
	 * slotwise-lettuce.
	 */
	@Param({ "sdr-jedis", "sdr-lettuce", "lettuce-async", "slotwise-jedis", "slotwise-lettuce" })
	public String target;

	private MultiGetTarget system;

	/** Starts a cluster, fills it, and starts the system under test. */
	@Setup(Level.Trial)
	public void setUp() {
		this.system = new MultiGetTarget(this.target, 100);
	}

	/** Stops the system under test and the cluster. */
	@TearDown(Level.Trial)
	public void tearDown() {
		this.system.close();
	}

	/**
	 * One multiGet of 100 keys.
	 * @return the values, consumed by JMH
	 */
	@Benchmark
	public List<String> multiGet() {
		return this.system.multiGet(this.system.nextKeys());
	}

}
