package dev.slotwise.test.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks that the test cluster is what the other integration tests rely on: a formed
 * cluster of real processes whose statistics can be read and reset.
 */
@WithRedisCluster
class RedisTestClusterIntegrationTests {

	private static final Pattern SLOT_RANGE = Pattern.compile(" (\\d+)-(\\d+)");

	@Test
	void formsThreeMastersWithOneReplicaEachCoveringEverySlot(RedisTestCluster cluster) {
		assertThat(cluster.nodes()).hasSize(6).noneMatch((node) -> node.port() == 6379);
		assertThat(cluster.masters()).hasSize(3);
		assertThat(cluster.replicas()).hasSize(3);
		int covered = 0;
		for (String line : cluster.clusterNodes(cluster.nodes().get(0))) {
			Matcher range = SLOT_RANGE.matcher(line);
			while (range.find()) {
				covered += Integer.parseInt(range.group(2)) - Integer.parseInt(range.group(1)) + 1;
			}
		}
		assertThat(covered).isEqualTo(16384);
		for (RedisNode node : cluster.nodes()) {
			assertThat(cluster.withAdmin(node, Jedis::clusterInfo)).contains("cluster_state:ok");
		}
	}

	@Test
	void everyNodesClientAndBusPortLieOutsideTheEphemeralRange(RedisTestCluster cluster) {
		int[] ephemeral = LoopbackPorts.ephemeralRange();
		List<String> lines = cluster.clusterNodes(cluster.nodes().get(0));
		for (RedisNode node : cluster.nodes()) {
			int bus = cluster.busPort(node);
			assertThat(List.of(node.port(), bus))
				.allSatisfy((port) -> assertThat(port < ephemeral[0] || port > ephemeral[1])
					.as("port %d outside %d-%d", port, ephemeral[0], ephemeral[1])
					.isTrue());
			assertThat(lines).anyMatch((line) -> line.split(" ")[1].startsWith(node.address() + "@" + bus));
		}
	}

	@Test
	void countsCommandsPerNodeAndResetsThem(RedisTestCluster cluster) {
		RedisNode node = cluster.masters().get(0);
		cluster.withAdmin(node, Jedis::ping);
		cluster.withAdmin(node, Jedis::ping);
		assertThat(cluster.commandCalls(node, "ping")).isGreaterThanOrEqualTo(2);
		cluster.resetStats();
		assertThat(cluster.commandCalls(node, "ping")).isZero();
	}

	@Test
	void resetDeletesEveryKey(RedisTestCluster cluster) {
		RedisNode owner = ownerOf(cluster, "reset-me");
		cluster.withAdmin(owner, (jedis) -> jedis.set("reset-me", "1"));
		cluster.reset();
		Boolean exists = cluster.withAdmin(owner, (jedis) -> jedis.exists("reset-me"));
		assertThat(exists).isFalse();
	}

	@Test
	void keySlotMatchesTheSpecVector(RedisTestCluster cluster) {
		// CRC16-XMODEM("123456789") = 0x31C3 = 12739, which is below 16384.
		assertThat(cluster.keySlot("123456789".getBytes())).isEqualTo(0x31C3);
	}

	@Test
	void stopsExactlyTheProcessesItStarted(RedisTestCluster shared) {
		Set<Long> before = redisServerChildren();
		RedisTestCluster own = RedisTestCluster.start(new ClusterShape(1, 0));
		Set<Long> started = redisServerChildren();
		started.removeAll(before);
		assertThat(started).hasSize(1);
		own.close();
		started.forEach((pid) -> ProcessHandle.of(pid).ifPresent((process) -> process.onExit().join()));
		assertThat(started).allMatch((pid) -> ProcessHandle.of(pid).map((p) -> !p.isAlive()).orElse(true));
		assertThat(redisServerChildren()).isEqualTo(before);
		assertThat(accepts(own.nodes().get(0).port())).isFalse();
		String pong = shared.withAdmin(shared.nodes().get(0), Jedis::ping);
		assertThat(pong).isEqualTo("PONG");
	}

	private static Set<Long> redisServerChildren() {
		return ProcessHandle.current()
			.children()
			.filter(ProcessHandle::isAlive)
			// Every child of the test JVM is a redis-server this class started (Debian's
			// redis-server is a link to redis-check-rdb, so the executable name does not
			// tell).
			.map(ProcessHandle::pid)
			.collect(Collectors.toCollection(HashSet::new));
	}

	private static boolean accepts(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static RedisNode ownerOf(RedisTestCluster cluster, String key) {
		int slot = cluster.keySlot(key.getBytes());
		return cluster.masters()
			.stream()
			.filter((master) -> cluster.clusterNodes(master)
				.stream()
				.filter((line) -> line.contains("myself"))
				.anyMatch((line) -> ownsSlot(line, slot)))
			.findFirst()
			.orElseThrow();
	}

	private static boolean ownsSlot(String line, int slot) {
		Matcher range = SLOT_RANGE.matcher(line);
		while (range.find()) {
			if (slot >= Integer.parseInt(range.group(1)) && slot <= Integer.parseInt(range.group(2))) {
				return true;
			}
		}
		return false;
	}

}
