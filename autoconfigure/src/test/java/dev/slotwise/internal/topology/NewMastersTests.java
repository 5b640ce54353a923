package dev.slotwise.internal.topology;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;

import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisClusterNode.LinkState;
import org.springframework.data.redis.connection.RedisClusterNode.SlotRange;
import org.springframework.data.redis.connection.RedisNode.NodeType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link NewMasters}: which masters count as new, and when the slot table is
 * renewed first.
 */
class NewMastersTests {

	private static final RedisClusterNode A = master("10.0.0.1", 0, 8191);

	private static final RedisClusterNode B = master("10.0.0.2", 8192, 16383);

	@Test
	void aMasterThatStartsServingSlotsIsHandedToTheListener() throws Exception {
		CompletableFuture<ServingMastersChange> seen = new CompletableFuture<>();
		NewMasters newMasters = new NewMasters(() -> pools("10.0.0.1", "10.0.0.2", "10.0.0.3"), () -> {
		});
		newMasters.listen(seen::complete);
		RedisClusterNode c = master("10.0.0.3", 8000, 8191);
		newMasters.compare(topology(A, B), topology(master("10.0.0.1", 0, 7999), B, c));
		ServingMastersChange change = seen.get(5, TimeUnit.SECONDS);
		assertThat(change.added()).extracting(RedisClusterNode::asString).containsExactly("10.0.0.3:6379");
		assertThat(change.removed()).isEmpty();
	}

	@Test
	void aFailoverHandsOverThePromotedReplicaAndTheMasterThatStoppedServing() throws Exception {
		CompletableFuture<ServingMastersChange> seen = new CompletableFuture<>();
		NewMasters newMasters = new NewMasters(() -> pools("10.0.0.1", "10.0.0.2", "10.0.0.3"), () -> {
		});
		newMasters.listen(seen::complete);
		// B's replica (10.0.0.3) took over all of B's slots; B is gone from the serving
		// masters.
		newMasters.compare(topology(A, B), topology(A, master("10.0.0.3", 8192, 16383)));
		ServingMastersChange change = seen.get(5, TimeUnit.SECONDS);
		assertThat(change.added()).extracting(RedisClusterNode::asString).containsExactly("10.0.0.3:6379");
		assertThat(change.removed()).extracting(RedisClusterNode::asString).containsExactly("10.0.0.2:6379");
	}

	@Test
	void aMasterEmptiedByAReshardingIsHandedOverAlone() throws Exception {
		CompletableFuture<ServingMastersChange> seen = new CompletableFuture<>();
		NewMasters newMasters = new NewMasters(() -> pools("10.0.0.1", "10.0.0.2"), () -> {
		});
		newMasters.listen(seen::complete);
		RedisClusterNode emptied = RedisClusterNode.newRedisClusterNode()
			.listeningAt("10.0.0.2", 6379)
			.promotedAs(NodeType.MASTER)
			.withId("10.0.0.2")
			.linkState(LinkState.CONNECTED)
			.build();
		newMasters.compare(topology(A, B), topology(master("10.0.0.1", 0, 16383), emptied));
		ServingMastersChange change = seen.get(5, TimeUnit.SECONDS);
		assertThat(change.added()).isEmpty();
		assertThat(change.removed()).extracting(RedisClusterNode::asString).containsExactly("10.0.0.2:6379");
	}

	@Test
	void theSlotTableIsRenewedFirstWhenTheClientHasNoPoolForANewMaster() throws Exception {
		List<String> events = new ArrayList<>();
		CompletableFuture<Void> done = new CompletableFuture<>();
		NewMasters newMasters = new NewMasters(() -> pools("10.0.0.1", "10.0.0.2"), () -> events.add("renew"));
		newMasters.listen((masters) -> {
			events.add("listener");
			done.complete(null);
		});
		newMasters.compare(topology(A, B), topology(master("10.0.0.1", 0, 7999), B, master("10.0.0.3", 8000, 8191)));
		done.get(5, TimeUnit.SECONDS);
		assertThat(events).containsExactly("renew", "listener");
	}

	@Test
	void closeEndsTheNotifyingThreadAndLaterEventsAreIgnored() throws Exception {
		CompletableFuture<Thread> notifiedOn = new CompletableFuture<>();
		AtomicInteger calls = new AtomicInteger();
		NewMasters newMasters = new NewMasters(() -> pools("10.0.0.1", "10.0.0.2", "10.0.0.3"), () -> {
		});
		newMasters.listen((masters) -> {
			calls.incrementAndGet();
			notifiedOn.complete(Thread.currentThread());
		});
		newMasters.compare(topology(A, B), topology(master("10.0.0.1", 0, 7999), B, master("10.0.0.3", 8000, 8191)));
		Thread thread = notifiedOn.get(5, TimeUnit.SECONDS);
		assertThat(thread.getName()).isEqualTo("slotwise-new-masters");
		newMasters.close();
		thread.join(5000);
		assertThat(thread.isAlive()).isFalse();
		newMasters.compare(topology(A, B), topology(master("10.0.0.1", 0, 7999), B, master("10.0.0.4", 8000, 8191)));
		Thread.sleep(200);
		assertThat(calls).hasValue(1);
	}

	@Test
	void aMasterWithoutSlotsTheFirstTopologyAndAnUnchangedOneAreNotNew() throws Exception {
		AtomicInteger calls = new AtomicInteger();
		NewMasters newMasters = new NewMasters(() -> pools("10.0.0.1", "10.0.0.2", "10.0.0.3"), () -> {
		});
		newMasters.listen((masters) -> calls.incrementAndGet());
		RedisClusterNode empty = RedisClusterNode.newRedisClusterNode()
			.listeningAt("10.0.0.3", 6379)
			.promotedAs(NodeType.MASTER)
			.withId("c")
			.linkState(LinkState.CONNECTED)
			.build();
		newMasters.compare(topology(A, B), topology(A, B, empty));
		newMasters.compare(null, topology(A, B));
		newMasters.compare(topology(A, B), topology(A, B));
		// Anything handed over would run on its own thread; give such a thread time to
		// show up.
		Thread.sleep(200);
		assertThat(calls).hasValue(0);
	}

	private static RedisClusterNode master(String host, int first, int last) {
		return RedisClusterNode.newRedisClusterNode()
			.listeningAt(host, 6379)
			.promotedAs(NodeType.MASTER)
			.withId(host)
			.linkState(LinkState.CONNECTED)
			.serving(new SlotRange(first, last))
			.build();
	}

	private static ClusterTopology topology(RedisClusterNode... nodes) {
		return new ClusterTopology(Set.of(nodes));
	}

	private static Map<String, ConnectionPool> pools(String... hosts) {
		Map<String, ConnectionPool> pools = new java.util.HashMap<>();
		for (String host : hosts) {
			// Never used to connect: only the keys are read.
			pools.put(host + ":6379", new ConnectionPool(new HostAndPort(host, 6379),
					redis.clients.jedis.DefaultJedisClientConfig.builder().build()));
		}
		return pools;
	}

}
