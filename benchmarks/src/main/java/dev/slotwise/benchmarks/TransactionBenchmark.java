package dev.slotwise.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.StandaloneRedisServer;
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
import redis.clients.jedis.Jedis;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One caller running a transaction of 10 commands ({@code multi()}, 10 {@code SET}s on
 * hash-tagged keys of one slot, {@code exec()}) through
 * {@code StringRedisTemplate.execute(SessionCallback)}:
 * <ul>
 * <li>{@code target=slotwise}: Slotwise on a real 3-master + 3-replica cluster (Spring
 * Data Redis alone refuses {@code MULTI} on a cluster);</li>
 * <li>{@code target=standalone}: the same callback on plain Spring Boot (Slotwise off)
 * against one standalone {@code redis-server}, the baseline of issue 29's target (within
 * 1.2× of its time).</li>
 * </ul>
 * Both over Jedis and over Lettuce ({@code client}). The tear-down prints what the
 * servers counted per transaction ({@code MULTI}, {@code EXEC}, {@code SET}, connections
 * accepted), so that a connection opened per transaction shows.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(1)
public class TransactionBenchmark {

	static final int COMMANDS = 10;

	/** The client: jedis or lettuce. */
	@Param({ "jedis", "lettuce" })
	public String client;

	/**
	 * The system under test: slotwise (cluster) or standalone (plain Spring Boot, one
	 * node).
	 */
	@Param({ "slotwise", "standalone" })
	public String target;

	private RedisTestCluster cluster;

	private StandaloneRedisServer standalone;

	private ConfigurableApplicationContext context;

	private StringRedisTemplate template;

	private final List<String> keys = new ArrayList<>();

	private long operations;

	private long connectionsBefore;

	private long value;

	/**
	 * Starts the cluster or the standalone server, and the application of the variant.
	 */
	@Setup(Level.Trial)
	public void setUp() {
		for (int i = 0; i < COMMANDS; i++) {
			this.keys.add("{tx:bench}:" + i);
		}
		String clientType = "spring.data.redis.client-type=" + this.client;
		if (this.target.equals("slotwise")) {
			this.cluster = RedisTestCluster.start(ClusterShape.DEFAULT);
			this.context = BenchmarkApplication.start(this.cluster, clientType, "slotwise.enabled=true",
					"spring.data.redis.timeout=30s");
		}
		else {
			this.standalone = StandaloneRedisServer.start(null);
			String[] address = this.standalone.address().split(":");
			this.context = new SpringApplicationBuilder(BenchmarkApplication.class).web(WebApplicationType.NONE)
				.properties("spring.data.redis.host=" + address[0], "spring.data.redis.port=" + address[1],
						"spring.data.redis.client-name=slotwise-benchmark", "spring.main.banner-mode=off",
						"logging.level.root=warn", clientType, "slotwise.enabled=false",
						"spring.data.redis.timeout=30s")
				.run();
		}
		this.template = this.context.getBean(StringRedisTemplate.class);
		List<Object> check = transaction();
		if (!check.equals(Collections.nCopies(COMMANDS, true))
				|| !String.valueOf(this.value).equals(this.template.opsForValue().get(this.keys.get(COMMANDS - 1)))) {
			throw new IllegalStateException(this.client + "/" + this.target + " ran the transaction wrongly: " + check);
		}
		if (this.cluster != null) {
			this.cluster.resetStats();
			this.connectionsBefore = connectionsReceived(this.cluster.masterServing(this.keys.get(0)));
		}
		else {
			this.connectionsBefore = this.standalone.connectionsReceived();
		}
	}

	/** Prints the server's counts per transaction, then stops everything. */
	@TearDown(Level.Trial)
	public void tearDown() {
		try {
			long operations = Math.max(1, this.operations);
			if (this.cluster != null) {
				RedisNode master = this.cluster.masterServing(this.keys.get(0));
				System.out.printf(
						"%n[server] %s/%s, %d transactions, on %s per transaction: %.2f MULTI, %.2f EXEC, "
								+ "%.2f SET, %.4f connections accepted%n",
						this.client, this.target, this.operations, master,
						(double) this.cluster.commandCalls(master, "multi") / operations,
						(double) this.cluster.commandCalls(master, "exec") / operations,
						(double) this.cluster.commandCalls(master, "set") / operations,
						(double) (connectionsReceived(master) - this.connectionsBefore) / operations);
				System.out.println("[server] every command per transaction: " + perOperation(
						this.cluster.withAdmin(master, (jedis) -> jedis.info("commandstats")), operations));
			}
			else {
				System.out.printf("%n[server] %s/%s, %d transactions, %.4f connections accepted per transaction%n",
						this.client, this.target, this.operations,
						(double) (this.standalone.connectionsReceived() - this.connectionsBefore) / operations);
				String[] address = this.standalone.address().split(":");
				try (Jedis jedis = new Jedis(address[0], Integer.parseInt(address[1]))) {
					System.out.println("[server] every command per transaction: "
							+ perOperation(jedis.info("commandstats"), operations));
				}
			}
			this.context.close();
		}
		finally {
			if (this.cluster != null) {
				this.cluster.close();
			}
			if (this.standalone != null) {
				this.standalone.close();
			}
		}
	}

	/**
	 * One transaction of 10 {@code SET}s.
	 * @return the results of {@code exec()}, consumed by JMH
	 */
	@Benchmark
	public List<Object> transaction() {
		this.operations++;
		String value = String.valueOf(++this.value);
		return this.template.execute(new SessionCallback<>() {

			@Override
			@SuppressWarnings("unchecked")
			public <K, V> List<Object> execute(RedisOperations<K, V> operations) throws DataAccessException {
				operations.multi();
				for (String key : TransactionBenchmark.this.keys) {
					operations.opsForValue().set((K) key, (V) value);
				}
				return operations.exec();
			}

		});
	}

	/**
	 * Calls per transaction of every command in {@code INFO commandstats} (admin commands
	 * included).
	 */
	private static String perOperation(String commandstats, long operations) {
		StringBuilder result = new StringBuilder();
		commandstats.lines().filter((line) -> line.startsWith("cmdstat_")).forEach((line) -> {
			String command = line.substring("cmdstat_".length(), line.indexOf(':'));
			long calls = Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
			result.append(String.format("%s %.3f; ", command, (double) calls / operations));
		});
		return result.toString();
	}

	/**
	 * Connections the node accepted since its statistics were reset (the admin connection
	 * is kept open).
	 */
	private long connectionsReceived(RedisNode node) {
		return this.cluster.withAdmin(node, (jedis) -> jedis.info("stats"))
			.lines()
			.filter((line) -> line.startsWith("total_connections_received:"))
			.mapToLong((line) -> Long.parseLong(line.substring(line.indexOf(':') + 1).trim()))
			.findFirst()
			.orElseThrow();
	}

}
