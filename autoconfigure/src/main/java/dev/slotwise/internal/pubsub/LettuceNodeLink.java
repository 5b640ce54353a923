package dev.slotwise.internal.pubsub;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import dev.slotwise.internal.routing.NodeAddress;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;

import org.springframework.data.redis.connection.util.ByteArrayWrapper;

/**
 * A {@link NodeLink} over the node pub/sub connection of a Lettuce cluster pub/sub connection. Lettuce reconnects it
 * and subscribes its names again by itself; the link only tells its own listener apart (the node connection may be
 * handed out again to a later link) and gives back what it holds when it closes.
 */
final class LettuceNodeLink implements NodeLink {

	private final NodeAddress node;

	private final StatefulRedisPubSubConnection<byte[], byte[]> connection;

	private final NodeLink.Events events;

	private final Listener listener = new Listener();

	private final Map<ChannelKind, Set<ByteArrayWrapper>> held = new EnumMap<>(ChannelKind.class);

	/** Sharded channels this link asked to unsubscribe: any other SUNSUBSCRIBE comes from the server. */
	private final Set<ByteArrayWrapper> unsubscribing = ConcurrentHashMap.newKeySet();

	private volatile boolean closed;

	LettuceNodeLink(NodeAddress node, StatefulRedisPubSubConnection<byte[], byte[]> connection,
			NodeLink.Events events) {
		this.node = node;
		this.connection = connection;
		this.events = events;
		for (ChannelKind kind : ChannelKind.values()) {
			this.held.put(kind, ConcurrentHashMap.newKeySet());
		}
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
		names.forEach((name) -> this.held.get(kind).add(new ByteArrayWrapper(name)));
		return future.toCompletableFuture();
	}

	@Override
	public void unsubscribe(ChannelKind kind, List<byte[]> names) {
		byte[][] array = names.toArray(byte[][]::new);
		names.forEach((name) -> this.held.get(kind).remove(new ByteArrayWrapper(name)));
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

	@Override
	public boolean isOpen() {
		// A node connection closed by Lettuce (a node gone from its partitions) never reconnects; a disconnected one
		// does, subscribing again on its own.
		return !this.closed && !(this.connection instanceof RedisChannelHandler<?, ?> handler && handler.isClosed());
	}

	@Override
	public void close() {
		this.closed = true;
		this.connection.removeListener(this.listener);
		if (this.connection instanceof RedisChannelHandler<?, ?> handler && handler.isClosed()) {
			return;
		}
		for (ChannelKind kind : ChannelKind.values()) {
			Set<ByteArrayWrapper> names = this.held.get(kind);
			if (!names.isEmpty()) {
				try {
					unsubscribe(kind, names.stream().map(ByteArrayWrapper::getArray).toList());
				}
				catch (RuntimeException ex) {
					// The connection is going away: the node drops its subscriptions with it.
				}
			}
		}
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
				LettuceNodeLink.this.held.get(ChannelKind.SHARD).remove(new ByteArrayWrapper(channel));
				LettuceNodeLink.this.events.unsubscribedByServer(LettuceNodeLink.this, channel);
			}
		}

	}

}
