package dev.slotwise.internal.pubsub;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.autoconfigure.SlotwisePubSubAutoConfiguration;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Context runners, server-side counts and slot moves for the pub/sub integration tests.
 */
final class PubSubTestSupport {

	private PubSubTestSupport() {
	}

	/**
	 * A context runner with Spring Boot's and Slotwise's auto-configuration against the
	 * cluster, whose connections carry a client name, so that {@code CLIENT LIST} tells
	 * its subscriptions apart.
	 */
	static ApplicationContextRunner runner(String client, RedisTestCluster cluster, String clientName) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class,
					SlotwisePubSubAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(),
					"spring.data.redis.client-name=" + clientName, "spring.data.redis.timeout=2s");
	}

	/** Turns on expiry notifications ({@code KEx}) on every node. */
	static void notifyExpiries(RedisTestCluster cluster) {
		for (RedisNode node : cluster.nodes()) {
			notifyExpiries(cluster, node);
		}
	}

	static void notifyExpiries(RedisTestCluster cluster, RedisNode node) {
		cluster.withAdmin(node, (jedis) -> jedis.configSet("notify-keyspace-events", "KEx"));
	}

	/**
	 * Returns the master serving each slot, from one {@code CLUSTER SLOTS}.
	 */
	static RedisNode[] slotOwners(RedisTestCluster cluster) {
		RedisNode[] owners = new RedisNode[16384];
		List<Object> slots = cluster.withAdmin(cluster.masters().get(0), Jedis::clusterSlots);
		for (Object entry : slots) {
			List<?> range = (List<?>) entry;
			int from = ((Long) range.get(0)).intValue();
			int to = ((Long) range.get(1)).intValue();
			List<?> master = (List<?>) range.get(2);
			String host = new String((byte[]) master.get(0));
			int port = ((Long) master.get(1)).intValue();
			RedisNode node = cluster.nodes()
				.stream()
				.filter((n) -> n.port() == port)
				.findFirst()
				.orElse(new RedisNode(host, port));
			Arrays.fill(owners, from, to + 1, node);
		}
		return owners;
	}

	/**
	 * Returns how many pub/sub connections of one client name a node holds, from its
	 * {@code CLIENT LIST}: those with a subscribed pattern, channel or sharded channel.
	 */
	static long subscribers(RedisTestCluster cluster, RedisNode node, String clientName, String field) {
		return cluster.clients(node)
			.stream()
			.filter((client) -> clientName.equals(client.get("name")))
			.filter((client) -> Long.parseLong(client.getOrDefault(field, "0")) > 0)
			.count();
	}

	/** Returns a counter of {@code INFO stats}, per master. */
	static Map<RedisNode, Long> stat(RedisTestCluster cluster, List<RedisNode> masters, String name) {
		Map<RedisNode, Long> values = new HashMap<>();
		for (RedisNode master : masters) {
			String info = cluster.withAdmin(master, (jedis) -> jedis.info("stats"));
			long value = info.lines()
				.filter((line) -> line.startsWith(name + ":"))
				.mapToLong((line) -> Long.parseLong(line.substring(name.length() + 1).trim()))
				.findFirst()
				.orElse(0);
			values.put(master, value);
		}
		return values;
	}

	/**
	 * Moves slots (their keys too) from one master to another, in the order the cluster
	 * specification gives.
	 */
	static void moveSlots(RedisTestCluster cluster, List<Integer> slots, RedisNode source, RedisNode target) {
		String sourceId = cluster.withAdmin(source, Jedis::clusterMyId);
		String targetId = cluster.withAdmin(target, Jedis::clusterMyId);
		List<RedisNode> order = new ArrayList<>(List.of(target, source));
		cluster.masters().stream().filter((master) -> !order.contains(master)).forEach(order::add);
		for (int slot : slots) {
			cluster.withAdmin(target, (jedis) -> jedis.clusterSetSlotImporting(slot, sourceId));
			cluster.withAdmin(source, (jedis) -> jedis.clusterSetSlotMigrating(slot, targetId));
			while (true) {
				List<String> keys = cluster.withAdmin(source, (jedis) -> jedis.clusterGetKeysInSlot(slot, 100));
				if (keys.isEmpty()) {
					break;
				}
				List<String> args = new ArrayList<>(
						List.of(target.host(), String.valueOf(target.port()), "", "0", "5000", "KEYS"));
				args.addAll(keys);
				cluster.withAdmin(source,
						(jedis) -> jedis.sendCommand(Protocol.Command.MIGRATE, args.toArray(new String[0])));
			}
			for (RedisNode master : order) {
				cluster.withAdmin(master, (jedis) -> jedis.clusterSetSlotNode(slot, targetId));
			}
		}
	}

	/**
	 * Makes a replica take over its master gracefully ({@code CLUSTER FAILOVER}) and
	 * waits until it is master.
	 */
	static void failOver(RedisTestCluster cluster, RedisNode master) {
		RedisNode replica = cluster.replicasOf(master).get(0);
		cluster.awaitReplicated(master, Duration.ofSeconds(10));
		cluster.withAdmin(replica, (jedis) -> jedis.sendCommand(Protocol.Command.CLUSTER, "FAILOVER"));
		await(Duration.ofSeconds(20), () -> cluster.isMaster(replica) && !cluster.isMaster(master));
		// Every node must see the new roles, or the test (and the client) may read an old
		// view of the owners.
		await(Duration.ofSeconds(20), () -> cluster.nodes().stream().allMatch((node) -> {
			try {
				return cluster.clusterNodes(node)
					.stream()
					.anyMatch((line) -> line.contains(":" + replica.port() + "@")
							&& line.split(" ")[2].contains("master"));
			}
			catch (RuntimeException ex) {
				return true;
			}
		}));
		cluster.awaitHealthy();
	}

	/**
	 * Kills a master, waits until its replica took over, restarts it and waits until it
	 * rejoined as a replica.
	 */
	static void killAndRestart(RedisTestCluster cluster, RedisNode master) {
		RedisNode replica = cluster.replicasOf(master).get(0);
		cluster.awaitReplicated(master, Duration.ofSeconds(10));
		cluster.kill(master);
		if (!await(Duration.ofSeconds(30), () -> cluster.isMaster(replica))) {
			throw new IllegalStateException(replica + " did not take over from the killed " + master);
		}
		cluster.restart(master);
		if (!await(Duration.ofSeconds(30), () -> {
			try {
				return !cluster.isMaster(master);
			}
			catch (RuntimeException ex) {
				return false;
			}
		})) {
			throw new IllegalStateException(master + " did not rejoin as a replica");
		}
		cluster.awaitHealthy();
	}

	static boolean await(Duration within, BooleanSupplier condition) {
		long deadline = System.nanoTime() + within.toNanos();
		while (System.nanoTime() < deadline) {
			if (condition.getAsBoolean()) {
				return true;
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}
		return condition.getAsBoolean();
	}

	static long percentile(List<Long> sorted, double p) {
		if (sorted.isEmpty()) {
			return -1;
		}
		int index = (int) Math.ceil(p * sorted.size()) - 1;
		return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
	}

}
