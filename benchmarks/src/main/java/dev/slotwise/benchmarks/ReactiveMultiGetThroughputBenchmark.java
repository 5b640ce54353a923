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
 * Throughput of 8 concurrent callers each running a reactive {@code multiGet} of 100
 * random cross-slot keys, through {@code ReactiveStringRedisTemplate} over Lettuce with
 * Spring Data Redis alone (the baseline) and with Slotwise, plus Slotwise's imperative
 * Lettuce path, on a real 3-master cluster. Compare ratios within one run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(8)
public class ReactiveMultiGetThroughputBenchmark {

	/**
	 * The system under test: sdr-reactive, slotwise-reactive, slotwise-lettuce
	 * (imperative, for reference).
	 */
	@Param({ "sdr-reactive", "slotwise-reactive", "slotwise-lettuce" })
	public String target;

	private ReactiveMultiGetTarget system;

	/** Starts a cluster, fills it, and starts the system under test. */
	@Setup(Level.Trial)
	public void setUp() {
		this.system = new ReactiveMultiGetTarget(this.target, 100);
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
