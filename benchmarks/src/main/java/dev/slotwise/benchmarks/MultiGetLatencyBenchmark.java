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
 * Latency of one {@code multiGet} of random cross-slot keys, one caller, for every system
 * under test on a real 3-master cluster. Compare ratios within one run: the machine is
 * shared with the cluster.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(1)
public class MultiGetLatencyBenchmark {

	/** Keys per call. */
	@Param({ "10", "100", "1000", "10000" })
	public int keys;

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
		this.system = new MultiGetTarget(this.target, this.keys);
	}

	/** Stops the system under test and the cluster. */
	@TearDown(Level.Trial)
	public void tearDown() {
		this.system.close();
	}

	/**
	 * One multiGet.
	 * @return the values, consumed by JMH
	 */
	@Benchmark
	public List<String> multiGet() {
		return this.system.multiGet(this.system.nextKeys());
	}

}
