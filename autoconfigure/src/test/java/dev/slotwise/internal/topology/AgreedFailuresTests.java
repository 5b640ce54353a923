package dev.slotwise.internal.topology;

import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.convert.Converters;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One node's suspicions ({@code fail?}, a disconnected link) do not take a master's slots
 * away; the cluster's agreed {@code fail} does. No Redis is contacted: the input is
 * {@code CLUSTER NODES} text as a replica reports it.
 */
class AgreedFailuresTests {

	private static final String NODES = """
			a1 127.0.0.1:7001@17001 master - 0 1700000000000 1 connected 0-5460
			b2 127.0.0.1:7002@17002 master,fail? - 1700000000000 1700000000000 2 connected 5461-10922
			c3 127.0.0.1:7003@17003 master - 0 1700000000000 3 disconnected 10923-16383
			d4 127.0.0.1:7004@17004 myself,slave a1 0 1700000000000 1 connected
			""";

	private static final String AGREED = """
			a1 127.0.0.1:7001@17001 master - 0 1700000000000 1 connected 0-5460
			b2 127.0.0.1:7002@17002 master,fail - 1700000000000 1700000000000 2 disconnected 5461-10922
			c3 127.0.0.1:7003@17003 master - 0 1700000000000 3 connected 10923-16383
			d4 127.0.0.1:7004@17004 myself,slave a1 0 1700000000000 1 connected
			""";

	@Test
	void mastersOnlyTheAnsweringNodeSuspectsKeepTheirSlots() {
		Set<RedisClusterNode> reported = Converters.toSetOfRedisClusterNodes(NODES);
		assertThat(new ClusterTopology(reported).getActiveMasterNodes()).as("Spring Data Redis on the raw answer")
			.hasSize(1);
		ClusterTopology topology = new ClusterTopology(AgreedFailures.apply(reported));
		assertThat(topology.getActiveMasterNodes()).extracting(RedisClusterNode::getPort)
			.containsExactlyInAnyOrder(7001, 7002, 7003);
		assertThat(topology.getActiveMasterNodes()).filteredOn((node) -> node.getPort() == 7002)
			.singleElement()
			.satisfies((node) -> {
				assertThat(node.getSlotRange().getSlots()).hasSize(10922 - 5461 + 1);
				assertThat(node.getId()).isEqualTo("b2");
				assertThat(node.isMaster()).isTrue();
			});
	}

	@Test
	void mastersTheClusterAgreedFailedLoseTheirSlots() {
		ClusterTopology topology = new ClusterTopology(
				AgreedFailures.apply(Converters.toSetOfRedisClusterNodes(AGREED)));
		assertThat(topology.getActiveMasterNodes()).extracting(RedisClusterNode::getPort)
			.containsExactlyInAnyOrder(7001, 7003);
	}

	@Test
	void replicasKeepTheirMaster() {
		ClusterTopology topology = new ClusterTopology(
				AgreedFailures.apply(Converters.toSetOfRedisClusterNodes(NODES)));
		assertThat(topology.getNodes()).filteredOn(RedisClusterNode::isReplica)
			.singleElement()
			.satisfies((node) -> assertThat(node.getMasterId()).isEqualTo("a1"));
	}

}
