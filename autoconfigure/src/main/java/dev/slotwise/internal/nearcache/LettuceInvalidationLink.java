package dev.slotwise.internal.nearcache;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import dev.slotwise.internal.routing.NodeAddress;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.push.PushListener;
import io.lettuce.core.api.push.PushMessage;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import org.jspecify.annotations.Nullable;

/**
 * An {@link InvalidationLink} over the node connection of a Lettuce cluster connection of
 * its own. Lettuce speaks RESP3 to Redis 6 and later unless told otherwise, so the node
 * pushes invalidations on the tracked connection itself
 * ({@code CLIENT TRACKING ON BCAST PREFIX ...}, no redirect), read by a
 * {@link PushListener}. A connection that negotiated RESP2 (the application set
 * {@code ClientOptions.protocolVersion}) cannot receive them that way: tracking is
 * refused.
 * <p>
 * Lettuce reconnects a dropped connection by itself, without tracking: the link watches
 * the client's connection events, is lost at the first disconnect of its connection, and
 * the near cache opens a new one.
 */
final class LettuceInvalidationLink implements InvalidationLink {

	/**
	 * How often a link asks its node for a sign of life, and how long it waits for the
	 * answer.
	 */
	private static final Duration HEARTBEAT = Duration.ofSeconds(1);

	/**
	 * The longest the connection and the tracking handshake may take before the link is
	 * given up.
	 */
	private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(10);

	private final NodeAddress node;

	private final RedisClusterClient client;

	private final InvalidationLink.Events events;

	private final CompletableFuture<Void> ready = new CompletableFuture<>();

	private final Watch watch = new Watch();

	private final PushListener listener = this::pushed;

	private volatile @Nullable StatefulRedisClusterConnection<byte[], byte[]> owner;

	private volatile @Nullable StatefulRedisConnection<byte[], byte[]> connection;

	private volatile boolean ended;

	/**
	 * When the last PING was sent, from {@link System#nanoTime()}; 0 while none is
	 * outstanding.
	 */
	private final java.util.concurrent.atomic.AtomicLong pingSentAt = new java.util.concurrent.atomic.AtomicLong();

	private volatile long lastPing = System.nanoTime();

	private volatile boolean closing;

	LettuceInvalidationLink(NodeAddress node, RedisClusterClient client, InvalidationLink.Events events) {
		this.node = node;
		this.client = client;
		this.events = events;
	}

	/**
	 * Connects and turns tracking on, asynchronously.
	 * @param prefixes the prefixes to track
	 */
	void start(List<byte[]> prefixes) {
		this.client.addListener(this.watch);
		// Asynchronous from end to end, bounded by the client's own timeouts and the one
		// below: the tracking's single thread opens the links and must never wait on a
		// node that does not answer.
		this.client.connectAsync(ByteArrayCodec.INSTANCE).thenCompose((owner) -> {
			this.owner = owner;
			if (this.closing) {
				owner.closeAsync();
				throw new IllegalStateException("Closed before tracking was on");
			}
			return owner.getConnectionAsync(this.node.host(), this.node.port());
		}).thenCompose((tracked) -> {
			this.connection = tracked;
			tracked.addListener(this.listener);
			return tracked.async().clientInfo().toCompletableFuture().thenCompose((info) -> {
				if (!info.contains(" resp=3")) {
					throw new TrackingRefusedException("the Lettuce connection to " + this.node
							+ " speaks RESP2 (ClientOptions.protocolVersion): the near cache over Lettuce needs RESP3, "
							+ "where invalidations arrive on the tracked connection");
				}
				TrackingArgs tracking = TrackingArgs.Builder.enabled()
					.bcast()
					.prefixes(StandardCharsets.ISO_8859_1,
							prefixes.stream()
								.map((prefix) -> new String(prefix, StandardCharsets.ISO_8859_1))
								.toArray(String[]::new));
				return tracked.async().clientTracking(tracking).toCompletableFuture();
			});
		}).orTimeout(SETUP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).whenComplete((ok, failure) -> {
			if (failure == null) {
				if (this.ended || this.closing) {
					this.ready.completeExceptionally(new IllegalStateException("Closed before tracking was on"));
				}
				else {
					this.ready.complete(null);
				}
			}
			else {
				Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
						? failure.getCause() : failure;
				if (cause instanceof RedisCommandExecutionException refusal) {
					cause = new TrackingRefusedException(
							this.node + " refused CLIENT TRACKING: " + refusal.getMessage(), refusal);
				}
				fail(cause);
			}
		});
	}

	private void fail(Throwable cause) {
		end();
		this.ready.completeExceptionally(cause);
	}

	@Override
	public NodeAddress node() {
		return this.node;
	}

	@Override
	public CompletableFuture<Void> ready() {
		return this.ready;
	}

	@Override
	public boolean isOpen() {
		return !this.ended && !this.closing;
	}

	@Override
	public void heartbeat() {
		StatefulRedisConnection<byte[], byte[]> connection = this.connection;
		long now = System.nanoTime();
		if (connection == null || !this.ready.isDone() || !isOpen() || now - this.lastPing < HEARTBEAT.toNanos()
				|| !this.pingSentAt.compareAndSet(0, now)) {
			return;
		}
		this.lastPing = now;
		// A dropped connection is reported by the client's disconnect event; a silent one
		// only by a PING that gets no answer.
		connection.async()
			.ping()
			.toCompletableFuture()
			.orTimeout(HEARTBEAT.toMillis(), TimeUnit.MILLISECONDS)
			.whenComplete((pong, failure) -> {
				this.pingSentAt.set(0);
				if (failure != null && isOpen()) {
					end();
					this.events.lost(this, failure);
				}
			});
	}

	@Override
	public void close() {
		this.closing = true;
		end();
	}

	private void end() {
		this.ended = true;
		this.client.removeListener(this.watch);
		StatefulRedisConnection<byte[], byte[]> connection = this.connection;
		if (connection != null) {
			connection.removeListener(this.listener);
		}
		StatefulRedisClusterConnection<byte[], byte[]> owner = this.owner;
		if (owner != null && owner.isOpen()) {
			// Closing the owner closes its node connections; the node drops the tracking
			// with them.
			owner.closeAsync();
		}
	}

	private void pushed(PushMessage message) {
		if (!"invalidate".equals(message.getType()) || this.ended) {
			return;
		}
		List<Object> content = message.getContent(LettuceInvalidationLink::bytes);
		Object keys = (content.size() > 1) ? content.get(1) : null;
		if (keys instanceof List<?> list) {
			List<byte[]> invalidated = new ArrayList<>(list.size());
			for (Object key : list) {
				if (key instanceof byte[] bytes) {
					invalidated.add(bytes);
				}
			}
			this.events.invalidated(this, invalidated);
		}
		else {
			this.events.invalidated(this, null);
		}
	}

	private static Object bytes(ByteBuffer buffer) {
		byte[] bytes = new byte[buffer.remaining()];
		buffer.get(bytes);
		return bytes;
	}

	/**
	 * Reports the link lost when its connection disconnects: whatever the node sent
	 * meanwhile is gone, and Lettuce's reconnect would come back without tracking.
	 */
	private final class Watch implements RedisConnectionStateListener {

		@Override
		public void onRedisDisconnected(RedisChannelHandler<?, ?> disconnected) {
			LettuceInvalidationLink link = LettuceInvalidationLink.this;
			if (disconnected != link.connection || link.ended) {
				return;
			}
			boolean reported = link.ready.isDone() && !link.ready.isCompletedExceptionally();
			link.end();
			if (reported && !link.closing) {
				link.events.lost(link, null);
			}
			else {
				link.ready.completeExceptionally(new IllegalStateException("Disconnected before tracking was on"));
			}
		}

	}

}
