package dev.slotwise.test.cluster;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The fault helpers, each checked against what every node reports once it returns.
 */
@WithRedisCluster(dedicated = true)
class FaultHelpersIntegrationTests {

	@Test
	void failoverPromotesAReplicaThatEveryNodeSeesAsMaster(RedisTestCluster cluster) {
		RedisNode master = cluster.masterServing("failover-key");
		List<RedisNode> replicas = cluster.replicasOf(master);
		cluster.withAdmin(master, (jedis) -> jedis.set("failover-key", "kept"));
		RedisNode promoted = cluster.failover(master);
		assertThat(replicas).contains(promoted);
		assertThat(cluster.masterServing("failover-key")).isEqualTo(promoted);
		assertThat(cluster.isMaster(master)).isFalse();
		String value = cluster.withAdmin(promoted, (jedis) -> jedis.get("failover-key"));
		assertThat(value).isEqualTo("kept");
		for (RedisNode node : cluster.nodes()) {
			assertThat(cluster.clusterNodes(node))
				.anyMatch((line) -> line.contains(promoted.address() + "@") && line.split(" ")[2].contains("master"));
		}
	}

	@Test
	void killMasterWaitsForTheTakeoverAndRestartBringsTheNodeBackAsReplica(RedisTestCluster cluster) {
		RedisNode master = cluster.masterServing("crash-key");
		cluster.withAdmin(master, (jedis) -> jedis.set("crash-key", "kept"));
		RedisNode promoted = cluster.killMaster(master);
		assertThat(cluster.isMaster(promoted)).isTrue();
		String value = cluster.withAdmin(promoted, (jedis) -> jedis.get("crash-key"));
		assertThat(value).isEqualTo("kept");
		cluster.restartAndAwaitHealthy(master);
		assertThat(cluster.isMaster(master)).isFalse();
		assertThat(cluster.replicasOf(promoted)).contains(master);
	}

	@Test
	void migrateSlotMovesTheKeysAndEveryNodeAgrees(RedisTestCluster cluster) {
		for (int i = 0; i < 50; i++) {
			String key = "{moved}:" + i;
			cluster.withAdmin(cluster.masterServing(key), (jedis) -> jedis.set(key, "v"));
		}
		int slot = cluster.keySlot("{moved}".getBytes());
		RedisNode source = cluster.masterServingSlot(slot);
		RedisNode target = cluster.masters().stream().filter((m) -> !m.equals(source)).findFirst().orElseThrow();
		cluster.migrateSlot(slot, target);
		for (RedisNode node : cluster.nodes()) {
			assertThat(cluster.clusterNodes(node)).filteredOn((line) -> line.contains(target.address() + "@"))
				.singleElement()
				.satisfies((line) -> assertThat(RedisTestCluster.servesSlot(line, slot)).isTrue());
		}
		assertThat(cluster.masterServingSlot(slot)).isEqualTo(target);
		long onTarget = cluster.withAdmin(target, (jedis) -> jedis.clusterCountKeysInSlot(slot));
		long onSource = cluster.withAdmin(source, (jedis) -> jedis.clusterCountKeysInSlot(slot));
		assertThat(onTarget).isEqualTo(50);
		assertThat(onSource).isZero();
	}

	@Test
	void pauseHoldsTheNodesCommandsUntilItEnds(RedisTestCluster cluster) {
		RedisNode node = cluster.masters().get(0);
		DefaultJedisClientConfig config = DefaultJedisClientConfig.builder().timeoutMillis(300).build();
		try (Jedis client = new Jedis(new HostAndPort(node.host(), node.port()), config)) {
			client.ping();
			cluster.pause(node, Duration.ofSeconds(2));
			assertThatExceptionOfType(JedisConnectionException.class).isThrownBy(client::ping);
		}
		try (Jedis client = new Jedis(new HostAndPort(node.host(), node.port()),
				DefaultJedisClientConfig.builder().timeoutMillis(10_000).build())) {
			assertThat(client.ping()).isEqualTo("PONG");
		}
	}

	@Test
	void killClientsClosesTheNamedConnections(RedisTestCluster cluster) {
		RedisNode node = cluster.masters().get(0);
		DefaultJedisClientConfig config = DefaultJedisClientConfig.builder().clientName("victim").build();
		try (Jedis first = new Jedis(new HostAndPort(node.host(), node.port()), config);
				Jedis second = new Jedis(new HostAndPort(node.host(), node.port()), config)) {
			first.ping();
			second.ping();
			assertThat(cluster.countClients(node, "victim")).isEqualTo(2);
			assertThat(cluster.killClients(node, "victim")).isEqualTo(2);
			assertThat(cluster.countClients(node, "victim")).isZero();
			assertThatExceptionOfType(JedisConnectionException.class).isThrownBy(first::ping);
		}
	}

	@Test
	void aMasterWithoutReplicaCannotFailOver() {
		try (RedisTestCluster small = RedisTestCluster.start(new ClusterShape(3, 0))) {
			assertThatIllegalStateException().isThrownBy(() -> small.failover(small.masters().get(0)))
				.withMessageContaining("has no replica");
		}
	}

}
