package dev.slotwise.internal.multikey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.internal.metrics.TopologyMeters;
import dev.slotwise.internal.topology.RefreshableTopologyProvider;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import io.lettuce.core.cluster.RedisClusterClient;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every secured cluster (a password, an ACL user, TLS only) must give an application
 * configured for it, on either client: pre-warmed connections, cross-slot reads and
 * writes over every master, a forced {@code ASK} followed with {@code ASKING} on the
 * engine's own connection, a topology refresh, the application's client name on every
 * connection it opens, and no authentication or permission error on any server.
 * Subclasses start one cluster per mode and say how the application connects to it.
 */
abstract class SecuredClusterScenario {

	static final String CLIENT_NAME = "slotwise-secured-app";

	/**
	 * Errors a healthy run may meet: redirects, the refusal that makes the engine split a
	 * migrating slot, and (on servers before 7.2 only, see {@link #noSecurityErrors}) the
	 * clients' handshake extras.
	 */
	private static final Set<String> EXPECTED_ERRORS = Set.of("ASK", "MOVED", "TRYAGAIN", "ERR");

	/**
	 * A context runner for an application that connects to the cluster with the given
	 * extra properties.
	 */
	static ApplicationContextRunner runner(String client, RedisTestCluster cluster, String... properties) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class,
					SslAutoConfiguration.class, MetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(),
					"spring.data.redis.client-name=" + CLIENT_NAME, "spring.data.redis.timeout=5s",
					"slotwise.topology.min-refresh-interval=0")
			.withPropertyValues(properties);
	}

	/**
	 * Runs the whole scenario for one client.
	 * @param client {@code jedis} or {@code lettuce}
	 * @param cluster the secured cluster
	 * @param properties how the application connects (credentials, SSL bundle)
	 */
	static void run(String client, RedisTestCluster cluster, String... properties) {
		cluster.reset();
		runner(client, cluster, properties).run((context) -> {
			assertThat(context).hasNotFailed();
			prewarmed(cluster);
			crossSlotReadsAndWrites(client, cluster, context.getBean(StringRedisTemplate.class));
			forcedAsk(client, cluster, context.getBean(StringRedisTemplate.class));
			topologyRefresh(client, context);
			namedConnections(cluster);
			noSecurityErrors(cluster);
		});
		assertThat(MultiKeyTestSupport.eventually(Duration.ofSeconds(10), () -> applicationConnections(cluster) == 0))
			.as("application connections closed")
			.isTrue();
	}

	/**
	 * Before the first request, every master already holds a connection of the
	 * application.
	 */
	private static void prewarmed(RedisTestCluster cluster) {
		for (RedisNode master : cluster.masters()) {
			assertThat(cluster.countClients(master, CLIENT_NAME)).as("pre-warmed connections on %s", master)
				.isPositive();
		}
	}

	private static void crossSlotReadsAndWrites(String client, RedisTestCluster cluster, StringRedisTemplate template) {
		cluster.resetStats();
		Map<String, String> entries = new LinkedHashMap<>();
		for (int i = 0; i < 300; i++) {
			entries.put("secured:" + client + ":" + i, "value-" + i);
		}
		List<String> keys = new ArrayList<>(entries.keySet());
		template.opsForValue().multiSet(entries);
		assertThat(template.opsForValue().multiGet(keys)).containsExactlyElementsOf(entries.values());
		for (RedisNode master : cluster.masters()) {
			assertThat(cluster.commandCalls(master, "mset")).as("MSET on %s", master).isPositive();
			assertThat(cluster.commandCalls(master, "mget")).as("MGET on %s", master).isPositive();
		}
		assertThat(template.delete(keys)).isEqualTo(keys.size());
		assertThat(template.countExistingKeys(keys)).isZero();
	}

	/**
	 * One slot half moved by hand: the engine meets TRYAGAIN, then ASK, and reads the
	 * moved key at the importing node after ASKING, which that node counts.
	 */
	private static void forcedAsk(String client, RedisTestCluster cluster, StringRedisTemplate template)
			throws InterruptedException {
		String tag = "{secured-ask-" + client + "}";
		SlotMigration migration = SlotMigration.of(cluster, tag);
		List<String> keys = List.of(tag + ":moved", tag + ":staying", "secured-elsewhere:" + client);
		for (String key : keys) {
			template.opsForValue().set(key, "v-" + key);
		}
		migration.begin();
		try {
			migration.moveKeys(List.of(tag + ":moved"));
			cluster.resetStats();
			assertThat(template.opsForValue().multiGet(keys))
				.containsExactlyElementsOf(keys.stream().map((key) -> "v-" + key).toList());
			assertThat(cluster.commandCalls(migration.target(), "asking")).as("ASKING at the importing node")
				.isPositive();
		}
		finally {
			migration.moveAllKeys(0);
			migration.finish();
		}
		cluster.awaitHealthy();
		assertThat(template.opsForValue().multiGet(keys))
			.containsExactlyElementsOf(keys.stream().map((key) -> "v-" + key).toList());
	}

	/**
	 * A refresh forced through the client's own provider succeeds against the secured
	 * nodes.
	 */
	private static void topologyRefresh(String client, AssertableApplicationContext context) {
		MeterRegistry registry = context.getBean(MeterRegistry.class);
		long before = refreshes(registry, client, "success");
		if (client.equals("jedis")) {
			RefreshableTopologyProvider provider = (RefreshableTopologyProvider) context
				.getBean(SlotwiseJedisConnectionFactory.class)
				.getRequiredTopologyProvider();
			provider.invalidate();
			provider.getTopology();
		}
		else {
			((RedisClusterClient) context.getBean(SlotwiseLettuceConnectionFactory.class).getRequiredNativeClient())
				.refreshPartitions();
		}
		assertThat(refreshes(registry, client, "success")).isGreaterThan(before);
		long all = registry.find(TopologyMeters.REFRESHES)
			.tag("client", client)
			.functionTimers()
			.stream()
			.mapToLong((timer) -> (long) timer.count())
			.sum();
		assertThat(all).as("every refresh succeeded").isEqualTo(refreshes(registry, client, "success"));
	}

	private static long refreshes(MeterRegistry registry, String client, String outcome) {
		return registry.find(TopologyMeters.REFRESHES)
			.tag("client", client)
			.tag("outcome", outcome)
			.functionTimers()
			.stream()
			.mapToLong((timer) -> (long) timer.count())
			.sum();
	}

	/**
	 * Every connection the application opened carries its client name: the pools, the
	 * engine's, the topology refresh's and the one that follows ASK redirects. Left out:
	 * the test kit's own connections, the nodes' links to each other (replication,
	 * flagged M or S) and the connection a MIGRATE opens from source to target (which
	 * runs RESTORE-ASKING).
	 */
	private static void namedConnections(RedisTestCluster cluster) {
		for (RedisNode node : cluster.nodes()) {
			for (Map<String, String> connection : cluster.clients(node)) {
				if (!isApplication(connection)) {
					continue;
				}
				assertThat(connection.get("name")).as("name of %s on %s", connection, node).isEqualTo(CLIENT_NAME);
			}
		}
	}

	private static boolean isApplication(Map<String, String> connection) {
		String flags = connection.getOrDefault("flags", "");
		String command = connection.getOrDefault("cmd", "");
		return !RedisTestCluster.ADMIN_CLIENT_NAME.equals(connection.get("name")) && !flags.contains("M")
				&& !flags.contains("S") && !command.startsWith("restore") && !command.equals("migrate");
	}

	/**
	 * No server refused a command for lack of authentication or permission, nor met any
	 * unexpected error. Servers before 7.2 answer {@code ERR} (unknown subcommand) to
	 * parts of the clients' handshake as each connection opens: {@code CLIENT SETINFO}
	 * for the library name and version (both clients), and Lettuce 7's opt-in to
	 * maintenance notifications; the clients ignore those refusals. They are bounded by
	 * three per connection the node received.
	 */
	static void noSecurityErrors(RedisTestCluster cluster) {
		for (RedisNode node : cluster.nodes()) {
			Map<String, Long> errors = errorstats(cluster, node);
			String described = errors + ", failing commands: " + failingCommands(cluster, node);
			assertThat(errors).as("errors on %s: %s", node, described)
				.doesNotContainKeys("NOAUTH", "WRONGPASS", "NOPERM");
			assertThat(errors.keySet()).as("errors on %s: %s", node, described).isSubsetOf(EXPECTED_ERRORS);
			long refusedSetInfo = errors.getOrDefault("ERR", 0L);
			if (refusedSetInfo > 0) {
				String version = cluster.withAdmin(node, (jedis) -> jedis.info("server"))
					.lines()
					.filter((line) -> line.startsWith("redis_version:"))
					.findFirst()
					.orElseThrow()
					.substring("redis_version:".length())
					.trim();
				assertThat(knowsSetInfo(version)).as("ERR on %s (Redis %s): %s", node, version, described).isFalse();
				assertThat(refusedSetInfo).as("ERR on %s: %s", node, described)
					.isLessThanOrEqualTo(3 * connectionsReceived(cluster, node));
			}
		}
	}

	private static boolean knowsSetInfo(String version) {
		String[] parts = version.split("\\.");
		int major = Integer.parseInt(parts[0]);
		int minor = Integer.parseInt(parts[1]);
		return major > 7 || (major == 7 && minor >= 2);
	}

	private static List<String> failingCommands(RedisTestCluster cluster, RedisNode node) {
		return cluster.withAdmin(node, (jedis) -> jedis.info("commandstats"))
			.lines()
			.filter((line) -> line.matches(".*(rejected|failed)_calls=[1-9].*"))
			.toList();
	}

	static Map<String, Long> errorstats(RedisTestCluster cluster, RedisNode node) {
		Map<String, Long> errors = new LinkedHashMap<>();
		cluster.withAdmin(node, (jedis) -> jedis.info("errorstats"))
			.lines()
			.filter((line) -> line.startsWith("errorstat_"))
			.forEach((line) -> errors.put(line.substring("errorstat_".length(), line.indexOf(':')),
					Long.parseLong(line.substring(line.indexOf("count=") + 6).trim())));
		return errors;
	}

	static long applicationConnections(RedisTestCluster cluster) {
		long connections = 0;
		for (RedisNode node : cluster.nodes()) {
			connections += cluster.countClients(node, CLIENT_NAME);
		}
		return connections;
	}

	/**
	 * Connections the nodes accepted since they started
	 * ({@code total_connections_received}), summed.
	 */
	static long connectionsReceived(RedisTestCluster cluster) {
		long received = 0;
		for (RedisNode node : cluster.nodes()) {
			received += connectionsReceived(cluster, node);
		}
		return received;
	}

	static long connectionsReceived(RedisTestCluster cluster, RedisNode node) {
		return cluster.withAdmin(node, (jedis) -> jedis.info("stats"))
			.lines()
			.filter((line) -> line.startsWith("total_connections_received:"))
			.mapToLong((line) -> Long.parseLong(line.substring(line.indexOf(':') + 1).trim()))
			.sum();
	}

}
