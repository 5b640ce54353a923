package dev.slotwise.internal.pubsub;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.SlotHash;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.util.ByteArrayWrapper;

/**
 * Where a {@link ClusterSubscription}'s channels and patterns should be subscribed:
 * keyspace and keyevent names on every master, other channels and patterns on one master
 * (the "home"), sharded channels on the master holding them or owning their slot, and not
 * again on a node that unsubscribed their slot on its own until the topology agrees. Used
 * under the subscription's lock.
 */
final class SubscriptionPlacement {

	/**
	 * How long a node's own unsubscription outweighs a topology that still names it the
	 * slot's owner.
	 */
	private static final long MOVED_AWAY_NANOS = TimeUnit.SECONDS.toNanos(10);

	private final boolean sharded;

	private final Set<ByteArrayWrapper> channels;

	private final Set<ByteArrayWrapper> patterns;

	private final Map<NodeAddress, SubscribedNode> nodes;

	/**
	 * Slots a node unsubscribed on its own (they moved away), with when: until the
	 * topology read agrees (it may lag behind the node), their channels are not
	 * subscribed there again, which the node would refuse with MOVED.
	 */
	private final Map<Integer, MovedAway> movedAway = new ConcurrentHashMap<>();

	private @Nullable NodeAddress home;

	/**
	 * @param sharded whether the subscription holds sharded channels
	 * @param channels the subscription's channels, read here
	 * @param patterns the subscription's patterns, read here
	 * @param nodes the subscription's nodes, read here
	 */
	SubscriptionPlacement(boolean sharded, Set<ByteArrayWrapper> channels, Set<ByteArrayWrapper> patterns,
			Map<NodeAddress, SubscribedNode> nodes) {
		this.sharded = sharded;
		this.channels = channels;
		this.patterns = patterns;
		this.nodes = nodes;
	}

	/**
	 * A node unsubscribed a sharded channel of {@code slot} on its own.
	 */
	void movedAway(int slot, NodeAddress from) {
		this.movedAway.put(slot, new MovedAway(from, System.nanoTime()));
	}

	/**
	 * Whether a slot is held back from a node that unsubscribed it.
	 */
	boolean hasMovedAway() {
		return !this.movedAway.isEmpty();
	}

	/**
	 * Splits names into commands: one for channels or patterns, one per slot for sharded
	 * channels (the server refuses an {@code SSUBSCRIBE} or {@code SUNSUBSCRIBE} spanning
	 * slots with {@code CROSSSLOT}).
	 */
	static List<List<byte[]>> commands(ChannelKind kind, List<byte[]> names) {
		if (names.isEmpty()) {
			return List.of();
		}
		if (kind != ChannelKind.SHARD) {
			return List.of(names);
		}
		Map<Integer, List<byte[]>> bySlot = new LinkedHashMap<>();
		for (byte[] name : names) {
			bySlot.computeIfAbsent(SlotHash.slot(name), (slot) -> new ArrayList<>()).add(name);
		}
		return List.copyOf(bySlot.values());
	}

	/**
	 * Returns the names each node should hold now.
	 * @param masters the cluster's masters
	 */
	Map<NodeAddress, Map<ChannelKind, Set<ByteArrayWrapper>>> wanted(Masters masters) {
		Map<NodeAddress, Map<ChannelKind, Set<ByteArrayWrapper>>> wanted = new HashMap<>();
		if (this.sharded) {
			long now = System.nanoTime();
			for (ByteArrayWrapper channel : this.channels) {
				// Where a node holds the channel, it stays until that node unsubscribes
				// it (its slot moved), stops serving or fails: the node knows better than
				// a view read from another node, which may lag.
				NodeAddress holder = holder(channel, masters);
				if (holder != null) {
					add(wanted, holder, ChannelKind.SHARD, channel);
					continue;
				}
				int slot = SlotHash.slot(channel.getArray());
				NodeAddress owner = masters.owner(slot);
				MovedAway moved = this.movedAway.get(slot);
				if (moved != null && (!moved.from.equals(owner) || now - moved.at > MOVED_AWAY_NANOS)) {
					this.movedAway.remove(slot, moved);
					moved = null;
				}
				if (owner != null && moved == null) {
					add(wanted, owner, ChannelKind.SHARD, channel);
				}
			}
			return wanted;
		}
		NodeAddress home = this.home;
		if (home == null || masters.others().contains(home) || (!masters.addresses().contains(home) && !isOpen(home))) {
			home = masters.addresses().get(0);
			this.home = home;
		}
		for (ByteArrayWrapper channel : this.channels) {
			placeOn(wanted, masters, home, ChannelKind.CHANNEL, channel);
		}
		for (ByteArrayWrapper pattern : this.patterns) {
			placeOn(wanted, masters, home, ChannelKind.PATTERN, pattern);
		}
		return wanted;
	}

	private @Nullable NodeAddress holder(ByteArrayWrapper channel, Masters masters) {
		for (Map.Entry<NodeAddress, SubscribedNode> entry : this.nodes.entrySet()) {
			if (entry.getValue().link.isOpen() && !masters.others().contains(entry.getKey())
					&& entry.getValue().held(ChannelKind.SHARD).contains(channel)) {
				return entry.getKey();
			}
		}
		return null;
	}

	private boolean isOpen(NodeAddress address) {
		SubscribedNode node = this.nodes.get(address);
		return node != null && node.link.isOpen();
	}

	static boolean placed(Map<NodeAddress, Map<ChannelKind, Set<ByteArrayWrapper>>> wanted, ByteArrayWrapper channel) {
		return wanted.values()
			.stream()
			.anyMatch((kinds) -> kinds.getOrDefault(ChannelKind.SHARD, Set.of()).contains(channel));
	}

	private static void placeOn(Map<NodeAddress, Map<ChannelKind, Set<ByteArrayWrapper>>> wanted, Masters masters,
			NodeAddress home, ChannelKind kind, ByteArrayWrapper name) {
		if (KeyspaceChannels.isKeyspace(name.getArray())) {
			for (NodeAddress master : masters.addresses()) {
				add(wanted, master, kind, name);
			}
		}
		else {
			add(wanted, home, kind, name);
		}
	}

	private static void add(Map<NodeAddress, Map<ChannelKind, Set<ByteArrayWrapper>>> wanted, NodeAddress node,
			ChannelKind kind, ByteArrayWrapper name) {
		wanted.computeIfAbsent(node, (ignored) -> new EnumMap<>(ChannelKind.class))
			.computeIfAbsent(kind, (ignored) -> new LinkedHashSet<>())
			.add(name);
	}

	private record MovedAway(NodeAddress from, long at) {
	}

}
