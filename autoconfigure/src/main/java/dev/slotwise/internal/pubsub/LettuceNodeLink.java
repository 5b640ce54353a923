package dev.slotwise.internal.pubsub;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import dev.slotwise.internal.routing.NodeAddress;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.util.ByteArrayWrapper;

/**
 * A {@link NodeLink} over the node pub/sub connection of a Lettuce cluster pub/sub
 * connection of its own, closed with the link: Lettuce keeps the node connections of a
 * cluster pub/sub connection for its whole life, reconnects them and subscribes their
 * names again (sharded channels of several slots in one {@code SSUBSCRIBE}, which the
 * server refuses with {@code CROSSSLOT}), even to a node that came back as a replica. A
 * link whose connection dropped is reported lost and replaced instead.
 */
final class LettuceNodeLink implements NodeLink {

	private final NodeAddress node;

	private final StatefulRedisClusterPubSubConnection<byte[], byte[]> owner;

	private final StatefulRedisPubSubConnection<byte[], byte[]> connection;

	private final NodeLink.Events events;

	private final Listener listener = new Listener();

	/**
	 * Sharded channels this link asked to unsubscribe: any other SUNSUBSCRIBE comes from
	 * the server.
	 */
	private final Set<ByteArrayWrapper> unsubscribing = ConcurrentHashMap.newKeySet();

	private volatile boolean closed;

	private volatile boolean lost;

	private final @Nullable String endpointId;

	LettuceNodeLink(NodeAddress node, StatefulRedisClusterPubSubConnection<byte[], byte[]> owner,
			StatefulRedisPubSubConnection<byte[], byte[]> connection, NodeLink.Events events) {
		this.node = node;
		this.owner = owner;
		this.connection = connection;
		this.events = events;
		this.endpointId = LettuceEndpointIds.of(connection);
		connection.addListener(this.listener);
	}

	@Override
	public NodeAddress node() {
		return this.node;
	}

	@Override
	public CompletableFuture<Void> subscribe(ChannelKind kind, List<byte[]> names) {
		byte[][] array = names.toArray(byte[][]::new);
		RedisPubSubAsyncCommands<byte[], byte[]> commands = this.connection.async();
		RedisFuture<Void> future = switch (kind) {
			case CHANNEL -> commands.subscribe(array);
			case PATTERN -> commands.psubscribe(array);
			case SHARD -> commands.ssubscribe(array);
		};
		return future.toCompletableFuture();
	}

	@Override
	public void unsubscribe(ChannelKind kind, List<byte[]> names) {
		byte[][] array = names.toArray(byte[][]::new);
		RedisPubSubAsyncCommands<byte[], byte[]> commands = this.connection.async();
		switch (kind) {
			case CHANNEL -> commands.unsubscribe(array);
			case PATTERN -> commands.punsubscribe(array);
			case SHARD -> {
				names.forEach((name) -> this.unsubscribing.add(new ByteArrayWrapper(name)));
				commands.sunsubscribe(array);
			}
		}
	}

	@Nullable String endpointId() {
		return this.endpointId;
	}

	@Override
	public boolean isOpen() {
		return !this.closed && !this.lost;
	}

	/**
	 * The connection to the node dropped: Lettuce would reconnect and subscribe again on
	 * its own, in ways the subscription cannot rely on, so the link is given up and
	 * replaced.
	 */
	void lost() {
		if (!this.closed && !this.lost) {
			this.lost = true;
			this.events.lost(this, null);
		}
	}

	@Override
	public void close() {
		this.closed = true;
		this.connection.removeListener(this.listener);
		// Closing the owner closes its node connections; the node drops the subscriptions
		// with them.
		this.owner.closeAsync();
	}

	private final class Listener extends RedisPubSubAdapter<byte[], byte[]> {

		@Override
		public void message(byte[] channel, byte[] message) {
			LettuceNodeLink.this.events.message(LettuceNodeLink.this, ChannelKind.CHANNEL, channel, message, null);
		}

		@Override
		public void message(byte[] pattern, byte[] channel, byte[] message) {
			LettuceNodeLink.this.events.message(LettuceNodeLink.this, ChannelKind.PATTERN, channel, message, pattern);
		}

		@Override
		public void smessage(byte[] channel, byte[] message) {
			LettuceNodeLink.this.events.message(LettuceNodeLink.this, ChannelKind.SHARD, channel, message, null);
		}

		@Override
		public void sunsubscribed(byte[] channel, long count) {
			if (channel != null && !LettuceNodeLink.this.unsubscribing.remove(new ByteArrayWrapper(channel))) {
				LettuceNodeLink.this.events.unsubscribedByServer(LettuceNodeLink.this, channel);
			}
		}

	}

}
