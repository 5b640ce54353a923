package dev.slotwise.internal.metrics;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.test.cluster.LoopbackPorts;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.FileSystemUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The per-node pool meters follow the Jedis client's pools on a real cluster: they count
 * what the pools do, leave with a node the client drops, come back with it, and keep
 * counting across a re-created pool. The cluster is dedicated because a node is stopped
 * and started.
 */
@WithRedisCluster(dedicated = true)
class JedisClusterPoolMetersIntegrationTests {

	private static final String APP = "slotwise-pool-meters-it";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class,
				MetricsAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		// Jedis re-reads CLUSTER SLOTS every second, so the client drops and adds nodes
		// quickly.
		.withPropertyValues("spring.data.redis.client-type=jedis", "spring.data.redis.client-name=" + APP,
				"slotwise.topology.periodic-refresh=1s");

	@Test
	void metersReadEveryNodePoolAndCountBorrows(RedisTestCluster cluster) {
		this.runner.withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.nodesProperty()).run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.opsForValue().set("pool-key", "v");
			String node = cluster.masterServing("pool-key").address();
			double before = registry.get(JedisClusterPoolMeters.BORROWS).tag("node", node).functionCounter().count();
			for (int i = 0; i < 25; i++) {
				template.opsForValue().get("pool-key");
			}
			assertThat(registry.get(JedisClusterPoolMeters.BORROWS).tag("node", node).functionCounter().count())
				.isEqualTo(before + 25);
			for (RedisNode master : cluster.masters()) {
				double idle = registry.get(JedisClusterPoolMeters.CONNECTIONS)
					.tags("node", master.address(), "state", "idle")
					.gauge()
					.value();
				assertThat(idle).as("idle connections to %s", master).isGreaterThanOrEqualTo(4);
				assertThat((double) cluster.countClients(master, APP)).isGreaterThanOrEqualTo(idle);
				double opened = registry.get(JedisClusterPoolMeters.OPENED)
					.tag("node", master.address())
					.functionCounter()
					.count();
				assertThat(opened).as("connections opened to %s", master)
					.isEqualTo((double) cluster.countClients(master, APP));
			}
		});
	}

	@Test
	void metersLeaveWithANodeAndComeBackWithIt(RedisTestCluster cluster) {
		// Another test of this class restarts nodes: let every replica link come back
		// before the client reads the topology, or the replicas are missing from its slot
		// table.
		cluster.awaitHealthy();
		this.runner.withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.nodesProperty()).run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			SlotwiseJedisConnectionFactory factory = context.getBean(SlotwiseJedisConnectionFactory.class);
			// A replica the client holds a pool for. A node that has not yet heard of
			// every replica through gossip (a freshly formed cluster, or a node another
			// test restarted) answers CLUSTER SLOTS without it, and Jedis then holds no
			// pool for it until its next renewal (every second here).
			await("the client to hold a pool for a replica",
					() -> cluster.replicas()
						.stream()
						.anyMatch((candidate) -> factory.getRequiredClusterClient()
							.getClusterNodes()
							.containsKey(candidate.address())));
			RedisNode replica = cluster.replicas()
				.stream()
				.filter((candidate) -> factory.getRequiredClusterClient()
					.getClusterNodes()
					.containsKey(candidate.address()))
				.findFirst()
				.orElseThrow();
			String node = replica.address();
			ConnectionPool first = factory.getRequiredClusterClient().getClusterNodes().get(node);
			// The meters pick up pools the client added on their next sync (every 5 s);
			// run it now rather than race
			// it: the pool appeared only a moment ago.
			context.getBean(JedisClusterPoolMeters.class).sync();
			assertThat(registry.find(JedisClusterPoolMeters.CONNECTIONS).tag("node", node).gauges()).hasSize(2);

			cluster.kill(replica);
			try {
				await("the client to drop " + node,
						() -> !factory.getRequiredClusterClient().getClusterNodes().containsKey(node));
				await("the meters of " + node + " to go",
						() -> registry.find(JedisClusterPoolMeters.CONNECTIONS).tag("node", node).gauges().isEmpty()
								&& registry.find(JedisClusterPoolMeters.OPENED).tag("node", node).meters().isEmpty());
			}
			finally {
				cluster.restart(replica);
			}
			cluster.awaitHealthy();
			await("the client to add " + node + " again",
					() -> factory.getRequiredClusterClient().getClusterNodes().containsKey(node));
			await("the meters of " + node + " to come back",
					() -> registry.find(JedisClusterPoolMeters.CONNECTIONS).tag("node", node).gauges().size() == 2);
			ConnectionPool second = factory.getRequiredClusterClient().getClusterNodes().get(node);
			assertThat(second).isNotSameAs(first);
			// Reads go to the pool the client holds now: borrow from it and see the meter
			// move.
			double borrows = registry.get(JedisClusterPoolMeters.BORROWS).tag("node", node).functionCounter().count();
			try (Connection connection = second.getResource()) {
				assertThat(registry.get(JedisClusterPoolMeters.CONNECTIONS)
					.tags("node", node, "state", "active")
					.gauge()
					.value()).isEqualTo(1);
			}
			assertThat(registry.get(JedisClusterPoolMeters.BORROWS).tag("node", node).functionCounter().count())
				.isEqualTo(borrows + 1);
		});
	}

	@Test
	void metersComeWithANodeAddedToTheClusterAndGoWithIt(RedisTestCluster cluster) throws Exception {
		this.runner.withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.nodesProperty()).run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			SlotwiseJedisConnectionFactory factory = context.getBean(SlotwiseJedisConnectionFactory.class);
			RedisNode master = cluster.masters().get(0);
			Path directory = Files.createTempDirectory("slotwise-added-node-");
			int port = LoopbackPorts.freePort();
			int busPort = LoopbackPorts.freePort();
			String node = "127.0.0.1:" + port;
			Process process = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind",
					"127.0.0.1", "--cluster-enabled", "yes", "--cluster-port", Integer.toString(busPort),
					"--cluster-node-timeout", "1500", "--dir", directory.toString(), "--save", "", "--appendonly", "no",
					"--logfile", "redis.log")
				.start();
			String addedId = null;
			try (Jedis added = awaitJedis(port)) {
				addedId = added.clusterMyId();
				String masterId = cluster.withAdmin(master, Jedis::clusterMyId);
				cluster.withAdmin(master, (jedis) -> jedis.sendCommand(Protocol.Command.CLUSTER, "MEET", "127.0.0.1",
						Integer.toString(port), Integer.toString(busPort)));
				await(node + " to know the master", () -> added.clusterNodes().contains(masterId));
				added.clusterReplicate(masterId);
				await("the client to add " + node,
						() -> factory.getRequiredClusterClient().getClusterNodes().containsKey(node));
				await("the meters of " + node + " to come",
						() -> registry.find(JedisClusterPoolMeters.CONNECTIONS).tag("node", node).gauges().size() == 2
								&& registry.find(JedisClusterPoolMeters.BORROWS)
									.tag("node", node)
									.meters()
									.size() == 1);
			}
			finally {
				process.destroyForcibly().waitFor();
				FileSystemUtils.deleteRecursively(directory);
			}
			await("the meters of " + node + " to go",
					() -> registry.find(JedisClusterPoolMeters.CONNECTIONS).tag("node", node).gauges().isEmpty());
			String forgotten = addedId;
			for (RedisNode member : cluster.nodes()) {
				cluster.withAdmin(member, (jedis) -> jedis.clusterForget(forgotten));
			}
			cluster.awaitHealthy();
		});
	}

	@Test
	void countersCarryOverAPoolTheClientReplaces(RedisTestCluster cluster) {
		RedisNode master = cluster.masters().get(0);
		HostAndPort address = new HostAndPort(master.host(), master.port());
		DefaultJedisClientConfig config = DefaultJedisClientConfig.builder().clientName(APP).build();
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		try (ConnectionPool first = new ConnectionPool(address, config);
				ConnectionPool second = new ConnectionPool(address, config);
				JedisClusterPoolMeters meters = new JedisClusterPoolMeters(Duration.ofHours(1))) {
			AtomicReference<ConnectionPool> current = new AtomicReference<>(first);
			meters.follow(() -> Map.of(master.address(), current.get()));
			meters.bindTo(registry);
			for (int i = 0; i < 3; i++) {
				first.getResource().close();
			}
			assertThat(borrows(registry, master)).isEqualTo(3);
			assertThat(opened(registry, master)).isEqualTo(1);
			current.set(second);
			second.getResource().close();
			second.getResource().close();
			assertThat(borrows(registry, master)).isEqualTo(5);
			assertThat(opened(registry, master)).isEqualTo(2);
			assertThat((double) cluster.countClients(master, APP)).isEqualTo(2);
		}
	}

	private static double borrows(MeterRegistry registry, RedisNode node) {
		return registry.get(JedisClusterPoolMeters.BORROWS).tag("node", node.address()).functionCounter().count();
	}

	private static double opened(MeterRegistry registry, RedisNode node) {
		return registry.get(JedisClusterPoolMeters.OPENED).tag("node", node.address()).functionCounter().count();
	}

	private static Jedis awaitJedis(int port) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (true) {
			Jedis jedis = new Jedis("127.0.0.1", port);
			try {
				jedis.ping();
				return jedis;
			}
			catch (RuntimeException ex) {
				jedis.close();
				assertThat(System.nanoTime()).as("redis-server on port %d to accept connections", port)
					.isLessThan(deadline);
				Thread.sleep(50);
			}
		}
	}

	private static void await(String what, BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime()).as("waiting for %s", what).isLessThan(deadline);
			Thread.sleep(100);
		}
	}

}
