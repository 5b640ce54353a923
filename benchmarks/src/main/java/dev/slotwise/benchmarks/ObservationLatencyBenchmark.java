package dev.slotwise.benchmarks;

import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.slotwise.test.cluster.ClusterShape;
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

/**
 * What observations cost a cross-slot {@code multiGet} through Slotwise, one caller: no
 * {@code ObservationRegistry} (the baseline), a registry without handlers (Lettuce's
 * tracing on, observations no-ops), and a recording one (Slotwise's call and node-batch
 * observations, and over Lettuce one {@code lettuce} observation per per-slot command, as
 * plain Spring Boot has). Sample mode gives the median. Compare ratios to
 * {@code registry=none} within one run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(1)
public class ObservationLatencyBenchmark {

	/** Keys per call. */
	@Param({ "100", "1000" })
	public int keys;

	/**
	 * The client under Slotwise ({@code jedis}, {@code lettuce}), or plain Spring Boot
	 * over Lettuce ({@code sdr-lettuce}, run on request:
	 * {@code -p client=lettuce,sdr-lettuce}).
	 */
	@Param({ "jedis", "lettuce" })
	public String client;

	/** The observation set-up: none, noop or recording. */
	@Param({ "none", "noop", "recording" })
	public String registry;

	private RedisTestCluster cluster;

	private ObservedTarget target;

	/** Starts a cluster, fills it, and starts the application. */
	@Setup(Level.Trial)
	public void setUp() {
		this.cluster = RedisTestCluster.start(ClusterShape.DEFAULT);
		ObservedTarget.populate(this.cluster);
		this.target = new ObservedTarget(this.cluster, this.client, this.registry, this.keys);
	}

	/** Stops the application and the cluster. */
	@TearDown(Level.Trial)
	public void tearDown() {
		try {
			this.target.close();
		}
		finally {
			this.cluster.close();
		}
	}

	/**
	 * One multiGet.
	 * @return the values, consumed by JMH
	 */
	@Benchmark
	public List<String> multiGet() {
		return this.target.multiGet();
	}

}
