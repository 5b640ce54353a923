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
 * Latency (sampled, so the median is reported) of one reactive {@code multiGet} of random
 * cross-slot keys, one caller, through {@code ReactiveStringRedisTemplate} over Lettuce
 * with Spring Data Redis alone (the baseline) and with Slotwise, plus Slotwise's
 * imperative Lettuce path, on a real 3-master cluster. Compare ratios within one run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(1)
public class ReactiveMultiGetLatencyBenchmark {

	/** Keys per call. */
	@Param({ "1000", "10000" })
	public int keys;

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
		this.system = new ReactiveMultiGetTarget(this.target, this.keys);
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
