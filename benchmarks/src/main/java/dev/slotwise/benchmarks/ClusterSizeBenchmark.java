package dev.slotwise.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
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
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import redis.clients.jedis.Jedis;

/**
 * The cluster-size sweep (issue 19): one {@code multiGet} of 1,000 random cross-slot
 * keys, one caller, on clusters of 3 to 24 masters (no replicas, slots spread evenly),
 * for Slotwise over Jedis and over Lettuce, Spring Data Redis over Lettuce, and the
 * hand-written physical-limit reference {@link IdealMultiGet} (the in-run baseline).
 * JMH's sample mode gives the median and the 99th percentile.
 * <p>
 * Beside JMH's figures each trial appends to {@code cluster-size-cpu.csv} (folder
 * {@code -Dslotwise.results}) the CPU time per call over the measurement iterations, of
 * this JVM (every thread) and of the servers ({@code INFO cpu}), and how many values came
 * back wrong in a check after every iteration; the {@code ideal} trial of each size also
 * appends to {@code cluster-size-topology.csv} the server's cost of
 * {@code CLUSTER NODES}, {@code CLUSTER SLOTS} and {@code CLUSTER SHARDS}
 * ({@code usec_per_call} from {@code INFO commandstats}) and the size of each reply.
 * {@link ScaleReport} turns them into tables.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(1)
public class ClusterSizeBenchmark {

	/** Masters of the cluster (no replicas). */
	@Param({ "3", "6", "12", "24" })
	public int masters;

	/**
	 * The system under test: ideal (the baseline), slotwise-jedis, slotwise-lettuce,
	 * sdr-lettuce.
	 */
	@Param({ "ideal", "slotwise-jedis", "slotwise-lettuce", "sdr-lettuce" })
	public String target;

	/** Keys per call. */
	@Param({ "1000" })
	public int keys;

	private MultiGetTarget system;

	private long calls;

	private long measuredCalls;

	private long cpuBefore;

	private double serverCpuBefore;

	private long measuredCpuNanos;

	private double measuredServerCpuSeconds;

	private long wrongValues;

	private long checkedValues;

	/** Starts a cluster of the size, fills it, and starts the system under test. */
	@Setup(Level.Trial)
	public void setUp() {
		this.system = new MultiGetTarget(this.target, this.keys, new ClusterShape(this.masters, 0));
	}

	/**
	 * Notes the CPU times before a measurement iteration.
	 * @param iteration the iteration's parameters
	 */
	@Setup(Level.Iteration)
	public void beforeIteration(IterationParams iteration) {
		if (iteration.getType() == IterationType.MEASUREMENT) {
			this.calls = 0;
			this.serverCpuBefore = serverCpuSeconds(this.system.cluster());
			this.cpuBefore = processCpuNanos();
		}
	}

	/**
	 * Adds a measurement iteration's CPU times, and checks one call's values.
	 * @param iteration the iteration's parameters
	 */
	@TearDown(Level.Iteration)
	public void afterIteration(IterationParams iteration) {
		if (iteration.getType() == IterationType.MEASUREMENT) {
			this.measuredCpuNanos += processCpuNanos() - this.cpuBefore;
			this.measuredServerCpuSeconds += serverCpuSeconds(this.system.cluster()) - this.serverCpuBefore;
			this.measuredCalls += this.calls;
		}
		List<String> keys = this.system.nextKeys();
		List<String> values = this.system.multiGet(keys);
		for (int i = 0; i < keys.size(); i++) {
			this.checkedValues++;
			if (!MultiGetTarget.expectedValue(keys.get(i)).equals(values.get(i))) {
				this.wrongValues++;
			}
		}
	}

	/**
	 * Writes the trial's CPU figures (and, for the ideal, the topology commands' cost),
	 * then stops everything.
	 */
	@TearDown(Level.Trial)
	public void tearDown() {
		try {
			append("cluster-size-cpu.csv",
					"masters,target,keys,calls,app_cpu_us_per_call,server_cpu_us_per_call,"
							+ "checked_values,wrong_values",
					String.format(Locale.ROOT, "%d,%s,%d,%d,%.1f,%.1f,%d,%d", this.masters, this.target, this.keys,
							this.measuredCalls, this.measuredCpuNanos / 1e3 / Math.max(1, this.measuredCalls),
							this.measuredServerCpuSeconds * 1e6 / Math.max(1, this.measuredCalls), this.checkedValues,
							this.wrongValues));
			if (this.target.equals("ideal")) {
				topologyCost(this.system.cluster(), this.masters);
			}
		}
		finally {
			this.system.close();
		}
	}

	/**
	 * One multiGet.
	 * @return the values, consumed by JMH
	 */
	@Benchmark
	public List<String> multiGet() {
		this.calls++;
		return this.system.multiGet(this.system.nextKeys());
	}

	/**
	 * What one topology query costs the server at this size: 200 of each command on one
	 * master after a statistics reset, then {@code usec_per_call} from
	 * {@code INFO commandstats}; the reply's size in bytes beside it.
	 */
	private static void topologyCost(RedisTestCluster cluster, int masters) {
		RedisNode node = cluster.masters().get(0);
		int repeats = 200;
		String[] commands = { "NODES", "SLOTS", "SHARDS" };
		for (String command : commands) {
			cluster.withAdmin(node, (Jedis jedis) -> {
				jedis.configResetStat();
				long bytes = 0;
				for (int i = 0; i < repeats; i++) {
					Object reply = jedis.sendCommand(redis.clients.jedis.Protocol.Command.CLUSTER, command);
					bytes = size(reply);
				}
				String stat = "cmdstat_cluster|" + command.toLowerCase(Locale.ROOT) + ":";
				String line = jedis.info("commandstats")
					.lines()
					.filter((l) -> l.startsWith(stat))
					.findFirst()
					.orElseThrow(() -> new IllegalStateException("No " + stat + " in INFO commandstats"));
				String usec = line.replaceFirst("^.*usec_per_call=", "").split(",")[0];
				append("cluster-size-topology.csv", "masters,command,usec_per_call,reply_bytes",
						String.format(Locale.ROOT, "%d,CLUSTER %s,%s,%d", masters, command, usec, bytes));
				return null;
			});
		}
	}

	/** The payload bytes of a decoded reply: bulk strings' lengths, integers as 8. */
	private static long size(Object reply) {
		if (reply instanceof byte[] bytes) {
			return bytes.length;
		}
		if (reply instanceof List<?> list) {
			long total = 0;
			for (Object element : list) {
				total += size(element);
			}
			return total;
		}
		return (reply == null) ? 0 : 8;
	}

	private static long processCpuNanos() {
		return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
	}

	/**
	 * The servers' CPU time so far ({@code used_cpu_user + used_cpu_sys}), summed over
	 * every master.
	 */
	private static double serverCpuSeconds(RedisTestCluster cluster) {
		double total = 0;
		for (RedisNode node : cluster.masters()) {
			String info = cluster.withAdmin(node, (Jedis jedis) -> jedis.info("cpu"));
			for (String line : info.lines().toList()) {
				if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
					total += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
				}
			}
		}
		return total;
	}

	static void append(String file, String header, String line) {
		Path path = Path.of(System.getProperty("slotwise.results", "benchmarks/results")).resolve(file);
		try {
			Files.createDirectories(path.getParent());
			if (!Files.exists(path)) {
				Files.writeString(path, header + "\n", StandardCharsets.UTF_8);
			}
			Files.writeString(path, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
