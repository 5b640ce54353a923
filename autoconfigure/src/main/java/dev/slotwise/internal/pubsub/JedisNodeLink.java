package dev.slotwise.internal.pubsub;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import dev.slotwise.internal.routing.NodeAddress;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.BinaryJedisPubSub;
import redis.clients.jedis.BinaryJedisShardedPubSub;
import redis.clients.jedis.Connection;

import org.springframework.data.redis.connection.util.ByteArrayWrapper;

/**
 * A {@link NodeLink} over one Jedis connection borrowed from the node's pool. Jedis's
 * pub/sub reads on the thread that subscribes first, so the link runs that loop on a
 * reader thread of the {@link PubSubRuntime}; later subscriptions are written from the
 * caller's thread, as Jedis allows. One link carries either channels and patterns
 * ({@code BinaryJedisPubSub}) or sharded channels ({@code BinaryJedisShardedPubSub}):
 * Jedis reads the two on different classes.
 * <p>
 * Closing disconnects the socket (the server drops the subscriptions with it) and hands
 * the connection back to the pool as broken: an orderly unsubscribe could leave a late
 * reply unread in a connection the pool would reuse.
 */
final class JedisNodeLink implements NodeLink {

	private final NodeAddress node;

	private final Function<NodeAddress, Connection> connections;

	private final Executor readers;

	private final Duration timeout;

	private final NodeLink.Events events;

	private final Map<ChannelKind, Map<ByteArrayWrapper, CompletableFuture<Void>>> pending = new EnumMap<>(
			ChannelKind.class);

	/**
	 * Sharded channels this link asked to unsubscribe: any other SUNSUBSCRIBE comes from
	 * the server.
	 */
	private final Set<ByteArrayWrapper> unsubscribing = ConcurrentHashMap.newKeySet();

	private final Classic classic = new Classic();

	private final Sharded sharded = new Sharded();

	private volatile @Nullable Connection connection;

	private volatile @Nullable CompletableFuture<Void> started;

	private volatile boolean ended;

	private volatile boolean closing;

	JedisNodeLink(NodeAddress node, Function<NodeAddress, Connection> connections, Executor readers, Duration timeout,
			NodeLink.Events events) {
		this.node = node;
		this.connections = connections;
		this.readers = readers;
		this.timeout = timeout;
		this.events = events;
		for (ChannelKind kind : ChannelKind.values()) {
			this.pending.put(kind, new ConcurrentHashMap<>());
		}
	}

	@Override
	public NodeAddress node() {
		return this.node;
	}

	@Override
	public CompletableFuture<Void> subscribe(ChannelKind kind, List<byte[]> names) {
		Map<ByteArrayWrapper, CompletableFuture<Void>> waiting = this.pending.get(kind);
		CompletableFuture<?>[] confirmations = new CompletableFuture<?>[names.size()];
		for (int i = 0; i < names.size(); i++) {
			confirmations[i] = waiting.computeIfAbsent(new ByteArrayWrapper(names.get(i)),
					(name) -> new CompletableFuture<>());
		}
		CompletableFuture<Void> confirmed = CompletableFuture.allOf(confirmations);
		byte[][] array = names.toArray(byte[][]::new);
		CompletableFuture<Void> first = this.started;
		if (first == null) {
			this.started = confirmed;
			start(kind, array);
			return confirmed;
		}
		// Jedis binds the pub/sub object to its connection on the reader thread: write
		// only once that happened.
		awaitStarted(first);
		if (this.ended) {
			throw new IllegalStateException("The pub/sub connection to " + this.node + " ended");
		}
		switch (kind) {
			case CHANNEL -> this.classic.subscribe(array);
			case PATTERN -> this.classic.psubscribe(array);
			case SHARD -> this.sharded.ssubscribe(array);
		}
		return confirmed;
	}

	private void awaitStarted(CompletableFuture<Void> first) {
		try {
			first.get(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException | TimeoutException ex) {
			throw new IllegalStateException("The pub/sub connection to " + this.node + " did not start", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	private void start(ChannelKind kind, byte[][] names) {
		Connection connection = this.connections.apply(this.node);
		this.connection = connection;
		try {
			this.readers.execute(() -> read(connection, kind, names));
		}
		catch (RuntimeException ex) {
			this.ended = true;
			connection.close();
			throw ex;
		}
	}

	private void read(Connection connection, ChannelKind kind, byte[][] names) {
		Throwable cause = null;
		try {
			switch (kind) {
				case CHANNEL -> this.classic.proceed(connection, names);
				case PATTERN -> this.classic.proceedWithPatterns(connection, names);
				case SHARD -> this.sharded.proceed(connection, names);
			}
		}
		catch (Throwable ex) {
			cause = ex;
		}
		finally {
			this.ended = true;
			if (this.closing || cause != null) {
				connection.setBroken();
			}
			try {
				connection.close();
			}
			catch (RuntimeException ex) {
				// Already disconnected: the pool drops it.
			}
			IllegalStateException failure = new IllegalStateException(
					"The pub/sub connection to " + this.node + " ended", cause);
			this.pending.values()
				.forEach((waiting) -> waiting.values().forEach((f) -> f.completeExceptionally(failure)));
			if (!this.closing) {
				this.events.lost(this, cause);
			}
		}
	}

	@Override
	public void unsubscribe(ChannelKind kind, List<byte[]> names) {
		if (this.started == null || this.ended) {
			return;
		}
		byte[][] array = names.toArray(byte[][]::new);
		try {
			switch (kind) {
				case CHANNEL -> this.classic.unsubscribe(array);
				case PATTERN -> this.classic.punsubscribe(array);
				case SHARD -> {
					names.forEach((name) -> this.unsubscribing.add(new ByteArrayWrapper(name)));
					this.sharded.sunsubscribe(array);
				}
			}
		}
		catch (RuntimeException ex) {
			disconnect();
		}
	}

	@Override
	public boolean isOpen() {
		return !this.ended && !this.closing;
	}

	@Override
	public void close() {
		this.closing = true;
		disconnect();
	}

	private void disconnect() {
		Connection connection = this.connection;
		if (connection != null && !this.ended) {
			connection.setBroken();
			try {
				connection.disconnect();
			}
			catch (RuntimeException ex) {
				// The reader sees the socket closed either way.
			}
		}
	}

	private void confirm(ChannelKind kind, byte @Nullable [] name) {
		if (name != null) {
			CompletableFuture<Void> waiting = this.pending.get(kind).remove(new ByteArrayWrapper(name));
			if (waiting != null) {
				waiting.complete(null);
			}
		}
	}

	private final class Classic extends BinaryJedisPubSub {

		@Override
		public void onMessage(byte[] channel, byte[] message) {
			JedisNodeLink.this.events.message(JedisNodeLink.this, ChannelKind.CHANNEL, channel, message, null);
		}

		@Override
		public void onPMessage(byte[] pattern, byte[] channel, byte[] message) {
			JedisNodeLink.this.events.message(JedisNodeLink.this, ChannelKind.PATTERN, channel, message, pattern);
		}

		@Override
		public void onSubscribe(byte[] channel, int subscribedChannels) {
			confirm(ChannelKind.CHANNEL, channel);
		}

		@Override
		public void onPSubscribe(byte[] pattern, int subscribedChannels) {
			confirm(ChannelKind.PATTERN, pattern);
		}

	}

	private final class Sharded extends BinaryJedisShardedPubSub {

		@Override
		public void onSMessage(byte[] channel, byte[] message) {
			JedisNodeLink.this.events.message(JedisNodeLink.this, ChannelKind.SHARD, channel, message, null);
		}

		@Override
		public void onSSubscribe(byte[] channel, int subscribedChannels) {
			confirm(ChannelKind.SHARD, channel);
		}

		@Override
		public void onSUnsubscribe(byte[] channel, int subscribedChannels) {
			if (channel != null && !JedisNodeLink.this.unsubscribing.remove(new ByteArrayWrapper(channel))) {
				JedisNodeLink.this.events.unsubscribedByServer(JedisNodeLink.this, channel);
			}
		}

	}

}
