package dev.slotwise.internal.keyspace;

import org.junit.jupiter.api.Test;

import dev.slotwise.internal.routing.NodeAddress;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Parsing {@code CLUSTER NODES} replies as Redis 7 writes them.
 */
class ClusterNodesTests {

	private static final String MASTER_VIEW = """
			07c3 127.0.0.1:30001@40001,node-1 myself,master - 0 0 1 connected 0-5460 [5461-<-292f] [100->-e7d1]
			292f 127.0.0.1:30002@40002,node-2 master - 0 1 2 connected 5461-10922
			e7d1 127.0.0.1:30003@40003 master,fail - 0 1 3 connected 10923-16383
			6ec2 127.0.0.1:30004@40004 slave 07c3 0 1 1 connected
			""";

	@Test
	void parsesSlotsMarkersHostnamesAndRoles() {
		ClusterNodes nodes = ClusterNodes.parse(MASTER_VIEW);
		ClusterNodes.Node myself = nodes.myself();
		assertThat(myself.id()).isEqualTo("07c3");
		assertThat(myself.address()).isEqualTo(new NodeAddress("127.0.0.1", 30001));
		assertThat(myself.hostname()).isEqualTo("node-1");
		assertThat(myself.slots().cardinality()).isEqualTo(5461);
		assertThat(myself.importing().get(5461)).isTrue();
		assertThat(myself.migrating().get(100)).isTrue();
		assertThat(nodes.slotsInMotion().cardinality()).isEqualTo(2);
		assertThat(nodes.servingMasters()).extracting(ClusterNodes.Node::id).containsExactly("07c3", "292f");
		assertThat(nodes.replicasOf(myself)).extracting(ClusterNodes.Node::id).containsExactly("6ec2");
	}

	@Test
	void aReplicasShardSlotsAreItsMasters() {
		String replicaView = MASTER_VIEW.replace("myself,master", "master").replace(" slave ", " myself,slave ");
		ClusterNodes nodes = ClusterNodes.parse(replicaView);
		assertThat(nodes.myself().id()).isEqualTo("6ec2");
		assertThat(nodes.shardSlots().cardinality()).isEqualTo(5461);
		assertThat(nodes.slotsInMotion().isEmpty()).isTrue();
	}

}
