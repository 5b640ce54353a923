package dev.slotwise.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
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
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.ClusterTopologyProvider;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;

/**
 * Topology lookups per second from 8 threads, Spring Data Redis's provider
 * ({@code provider=sdr}, Slotwise's topology switched off) against Slotwise's
 * ({@code provider=slotwise}), over Jedis and Lettuce, each on a fresh real cluster. The
 * server side is measured too: {@code CLUSTER NODES} calls per second over the whole
 * cluster (from {@code INFO commandstats}, reset before each iteration), printed per
 * measurement iteration and appended to
 * {@code benchmarks/results/topology-cluster-nodes.csv} (directory from
 * {@code -Dslotwise.results}).
 * <p>
 * Run:
 * {@code java -jar benchmarks/target/benchmarks.jar TopologyLookupBenchmark -f 1 -wi 1 -w 2s -i 3 -r 5s
 * -rf json -rff benchmarks/results/topology.json}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(8)
public class TopologyLookupBenchmark {

	@Param({ "jedis", "lettuce" })
	public String client;

	@Param({ "sdr", "slotwise" })
	public String provider;

	private RedisTestCluster cluster;

	private ConfigurableApplicationContext context;

	private ClusterTopologyProvider topology;

	private long iterationStart;

	@Setup(Level.Trial)
	public void startCluster() {
		this.cluster = RedisTestCluster.start(ClusterShape.DEFAULT);
		this.context = new SpringApplicationBuilder(BenchmarkApplication.class).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties("spring.data.redis.client-type=" + this.client,
					"spring.data.redis.cluster.nodes=" + this.cluster.nodesProperty(),
					"slotwise.topology.enabled=" + "slotwise".equals(this.provider), "logging.level.root=warn")
			.run();
		if ("jedis".equals(this.client)) {
			this.topology = this.context.getBean(SlotwiseJedisConnectionFactory.class).getRequiredTopologyProvider();
		}
		else {
			SlotwiseLettuceConnectionFactory factory = this.context.getBean(SlotwiseLettuceConnectionFactory.class);
			factory.getClusterConnection().close();
			this.topology = factory.getRequiredTopologyProvider();
		}
	}

	@Setup(Level.Iteration)
	public void resetServerStats() {
		this.cluster.resetStats();
		this.iterationStart = System.nanoTime();
	}

	@TearDown(Level.Iteration)
	public void recordClusterNodes(BenchmarkParams benchmark, IterationParams iteration) throws IOException {
		double seconds = (System.nanoTime() - this.iterationStart) / 1e9;
		long calls = this.cluster.totalCommandCalls("cluster|nodes");
		String line = String.format(Locale.ROOT, "%s,%s,%s,%d,%.3f,%.2f%n", this.client, this.provider,
				iteration.getType(), calls, seconds, calls / seconds);
		System.out.print("CLUSTER NODES: " + line);
		if (iteration.getType() == IterationType.MEASUREMENT) {
			Path results = Path.of(System.getProperty("slotwise.results", "benchmarks/results"));
			Files.createDirectories(results);
			Path csv = results.resolve("topology-cluster-nodes.csv");
			if (!Files.exists(csv)) {
				Files.writeString(csv,
						"client,provider,iteration,cluster_nodes_calls,seconds,cluster_nodes_per_second\n",
						StandardCharsets.UTF_8);
			}
			Files.writeString(csv, line, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
		}
	}

	@TearDown(Level.Trial)
	public void stopCluster() {
		if (this.context != null) {
			this.context.close();
		}
		if (this.cluster != null) {
			this.cluster.close();
		}
	}

	@Benchmark
	public ClusterTopology lookup() {
		return this.topology.getTopology();
	}

	/**
	 * The smallest application with Spring Boot's Redis auto-configuration and
	 * Slotwise's.
	 */
	@SpringBootConfiguration
	@ImportAutoConfiguration({ SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class })
	public static class BenchmarkApplication {

	}

}
