package dev.slotwise.internal.keyspace;

import dev.slotwise.internal.routing.Glob;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.SlotHash;
import org.jspecify.annotations.Nullable;

/**
 * A cluster in memory for the scan's unit tests: masters holding keys at fixed positions
 * of their own "hash table", a {@code SCAN} that walks positions in order,
 * {@code CLUSTER NODES} views built from the current slot owners, and a hook before every
 * {@code SCAN} page through which a test moves keys or fails a node. Replies complete at
 * once.
 */
final class FakeScanTransport implements ScanTransport {

	static final int TABLE = 1000;

	final Map<String, FakeNode> nodes = new LinkedHashMap<>();

	BiConsumer<FakeNode, Integer> beforePage = (node, cursor) -> {
	};

	int pageSize = 50;

	java.util.function.Consumer<FakeNode> beforeUnlink = (node) -> {
	};

	long unlinks;

	long scans;

	FakeNode add(String id, int port, int fromSlot, int toSlot) {
		FakeNode node = new FakeNode(id, new NodeAddress("127.0.0.1", port));
		node.slots.set(fromSlot, toSlot);
		this.nodes.put(id, node);
		return node;
	}

	@Override
	public List<NodeAddress> seeds() {
		return this.nodes.values().stream().map((node) -> node.address).toList();
	}

	@Override
	public CompletableFuture<String> clusterNodes(ClusterNodes.Node node) {
		return clusterNodes(node.address());
	}

	@Override
	public CompletableFuture<String> clusterNodes(NodeAddress address) {
		FakeNode self = byAddress(address);
		if (self == null || self.down) {
			return CompletableFuture.failedFuture(new IllegalStateException("Connection refused: " + address));
		}
		StringBuilder reply = new StringBuilder();
		for (FakeNode node : this.nodes.values()) {
			reply.append(node.id).append(' ').append(node.address).append("@1").append(node.address.port()).append(' ');
			reply.append((node == self) ? "myself," : "").append(node.master ? "master" : "slave");
			reply.append(node.down ? ",fail" : "").append(' ');
			reply.append((node.masterId != null) ? node.masterId : "-").append(" 0 0 1 connected");
			for (int slot = node.slots.nextSetBit(0); slot >= 0; slot = node.slots.nextSetBit(slot + 1)) {
				int end = node.slots.nextClearBit(slot) - 1;
				reply.append(' ').append(slot).append((end > slot) ? "-" + end : "");
				slot = end;
			}
			if (node == self) {
				for (int slot = node.migrating.nextSetBit(0); slot >= 0; slot = node.migrating.nextSetBit(slot + 1)) {
					reply.append(" [").append(slot).append("->-x]");
				}
				for (int slot = node.importing.nextSetBit(0); slot >= 0; slot = node.importing.nextSetBit(slot + 1)) {
					reply.append(" [").append(slot).append("-<-x]");
				}
			}
			reply.append('\n');
		}
		return CompletableFuture.completedFuture(reply.toString());
	}

	@Override
	public CompletableFuture<Page> scan(ClusterNodes.Node node, String cursor, byte @Nullable [] match,
			@Nullable Long count, @Nullable String type) {
		FakeNode fake = this.nodes.get(node.id());
		int position = Integer.parseInt(cursor);
		this.beforePage.accept(fake, position);
		this.scans++;
		if (fake.down) {
			return CompletableFuture.failedFuture(new IllegalStateException("Connection reset: " + fake.address));
		}
		List<byte[]> keys = new ArrayList<>();
		int end = Math.min(TABLE, position + this.pageSize);
		for (List<String> bucket : fake.table.subMap(position, end).values()) {
			for (String key : bucket) {
				byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
				if (match == null || Glob.matches(match, bytes)) {
					keys.add(bytes);
				}
			}
		}
		return CompletableFuture.completedFuture(new Page((end >= TABLE) ? "0" : String.valueOf(end), keys));
	}

	@Override
	public CompletableFuture<List<TypedKey>> keysInSlots(ClusterNodes.Node node, int[] slots, boolean withTypes) {
		FakeNode fake = this.nodes.get(node.id());
		BitSet wanted = new BitSet();
		for (int slot : slots) {
			wanted.set(slot);
		}
		List<TypedKey> keys = new ArrayList<>();
		for (List<String> bucket : fake.table.values()) {
			for (String key : bucket) {
				byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
				if (wanted.get(SlotHash.slot(bytes))) {
					keys.add(new TypedKey(bytes, withTypes ? "string" : null));
				}
			}
		}
		return CompletableFuture.completedFuture(keys);
	}

	@Override
	public CompletableFuture<boolean[]> unlink(ClusterNodes.Node node, List<byte[][]> groups) {
		FakeNode fake = this.nodes.get(node.id());
		this.beforeUnlink.accept(fake);
		this.unlinks += groups.size();
		if (fake.down) {
			return CompletableFuture.failedFuture(new IllegalStateException("Connection reset: " + fake.address));
		}
		boolean[] removed = new boolean[groups.size()];
		for (int i = 0; i < removed.length; i++) {
			// A group of a slot the node no longer serves is refused (a redirect), as a
			// server would.
			removed[i] = fake.slots.get(SlotHash.slot(groups.get(i)[0]));
			if (removed[i]) {
				for (byte[] key : groups.get(i)) {
					fake.remove(new String(key, StandardCharsets.UTF_8));
				}
			}
		}
		return CompletableFuture.completedFuture(removed);
	}

	@Override
	public CompletableFuture<List<byte[]>> keys(ClusterNodes.Node node, byte[] pattern) {
		throw new UnsupportedOperationException();
	}

	@Override
	public void invalidateTopology() {
	}

	@Override
	public boolean readFromReplicas() {
		return false;
	}

	private @Nullable FakeNode byAddress(NodeAddress address) {
		return this.nodes.values().stream().filter((node) -> node.address.equals(address)).findFirst().orElse(null);
	}

	/**
	 * One node.
	 */
	static final class FakeNode {

		final String id;

		final NodeAddress address;

		final BitSet slots = new BitSet();

		final BitSet migrating = new BitSet();

		final BitSet importing = new BitSet();

		final TreeMap<Integer, List<String>> table = new TreeMap<>();

		boolean master = true;

		boolean down;

		@Nullable String masterId;

		FakeNode(String id, NodeAddress address) {
			this.id = id;
			this.address = address;
		}

		void put(String key, int position) {
			this.table.computeIfAbsent(position, (ignored) -> new ArrayList<>()).add(key);
		}

		boolean remove(String key) {
			for (List<String> bucket : this.table.values()) {
				if (bucket.remove(key)) {
					return true;
				}
			}
			return false;
		}

		/**
		 * The position a key hashes to on this node: each node seeds its hash
		 * differently.
		 */
		int position(String key) {
			return Math.floorMod((key + "/" + this.id).hashCode() * 31, TABLE);
		}

	}

}
