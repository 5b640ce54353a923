package dev.slotwise.internal.pubsub;

import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.slotwise.internal.routing.NodeAddress;

import org.springframework.data.redis.connection.util.ByteArrayWrapper;

/**
 * A node of a {@link ClusterSubscription}: its link and the names its node confirmed, per
 * kind; the sets are read by the link's reader to filter messages.
 */
final class SubscribedNode {

	final NodeLink link;

	private final Map<ChannelKind, Set<ByteArrayWrapper>> held = new EnumMap<>(ChannelKind.class);

	/** What the observer was told this node holds: confirmed names only. */
	final AtomicInteger reported = new AtomicInteger();

	SubscribedNode(NodeLink link) {
		this.link = link;
		for (ChannelKind kind : ChannelKind.values()) {
			this.held.put(kind, ConcurrentHashMap.newKeySet());
		}
	}

	Set<ByteArrayWrapper> held(ChannelKind kind) {
		return this.held.get(kind);
	}

	int size() {
		return this.held.values().stream().mapToInt(Set::size).sum();
	}

	void report(PubSubObserver observer, NodeAddress address, boolean sharded, int delta) {
		if (delta != 0) {
			this.reported.addAndGet(delta);
			observer.subscriptions(address.toString(), sharded, delta);
		}
	}

}
