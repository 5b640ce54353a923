package dev.slotwise.internal.nearcache;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import dev.slotwise.internal.routing.NodeAddress;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * An {@link InvalidationLink} over one Jedis connection taken from the node's pool for as
 * long as it lives, read on a thread of its own. On it: {@code HELLO 2} (invalidations
 * then come as pub/sub messages, whatever protocol the pool speaks), {@code CLIENT ID},
 * {@code CLIENT TRACKING ON REDIRECT <its own id> BCAST PREFIX ...} and
 * {@code SUBSCRIBE __redis__:invalidate}; once the node confirmed the subscription, every
 * write under the prefixes is reported on it. The connection goes back to the pool
 * broken, so that nobody else gets a tracking connection.
 */
final class JedisInvalidationLink implements InvalidationLink {

	private static final byte[] CHANNEL = "__redis__:invalidate".getBytes(StandardCharsets.US_ASCII);

	private final NodeAddress node;

	private final Supplier<Connection> connections;

	private final List<byte[]> prefixes;

	private final InvalidationLink.Events events;

	private final CompletableFuture<Void> ready = new CompletableFuture<>();

	private volatile @Nullable Connection connection;

	private volatile boolean ended;

	private volatile boolean closing;

	JedisInvalidationLink(NodeAddress node, Supplier<Connection> connections, List<byte[]> prefixes,
			InvalidationLink.Events events) {
		this.node = node;
		this.connections = connections;
		this.prefixes = List.copyOf(prefixes);
		this.events = events;
	}

	/**
	 * Starts the link's reader.
	 * @param readers where the reader runs, one thread per link
	 */
	void start(Executor readers) {
		try {
			readers.execute(this::run);
		}
		catch (RuntimeException ex) {
			this.ended = true;
			this.ready.completeExceptionally(ex);
		}
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
	public void close() {
		this.closing = true;
		Connection connection = this.connection;
		if (connection != null) {
			connection.setBroken();
			try {
				connection.disconnect();
			}
			catch (RuntimeException ex) {
				// The reader sees the socket closed either way.
			}
		}
	}

	private void run() {
		Connection connection = null;
		Throwable cause = null;
		try {
			connection = this.connections.get();
			this.connection = connection;
			if (this.closing) {
				return;
			}
			handshake(connection);
			// No read timeout: a quiet node sends nothing for as long as nobody writes
			// under the prefixes, and a timed-out read leaves Jedis's connection marked
			// broken, so it cannot ask the node with a PING either. A connection that
			// dies without a reset goes unseen until the node is marked failed or
			// time-to-live.
			connection.setTimeoutInfinite();
			this.ready.complete(null);
			read(connection);
		}
		catch (Throwable ex) {
			cause = ex;
		}
		finally {
			// Closed before it reports: the tracking checks links after tracking slots
			// (see Tracking.check).
			this.ended = true;
			if (connection != null) {
				connection.setBroken();
				try {
					connection.close();
				}
				catch (RuntimeException ex) {
					// Already disconnected: the pool drops it.
				}
			}
			if (!this.ready.isDone()) {
				this.ready.completeExceptionally(
						(cause != null) ? cause : new IllegalStateException("Closed before tracking was on"));
			}
			else if (!this.closing) {
				this.events.lost(this, cause);
			}
		}
	}

	private void handshake(Connection connection) {
		try {
			connection.sendCommand(Protocol.Command.HELLO, "2");
			connection.getOne();
		}
		catch (JedisDataException ex) {
			throw new TrackingRefusedException(this.node + " refused HELLO (client tracking needs Redis 6 or later)",
					ex);
		}
		try {
			connection.sendCommand(Protocol.Command.CLIENT, "ID");
			long id = (Long) connection.getOne();
			List<byte[]> arguments = new ArrayList<>();
			arguments.add(bytes("TRACKING"));
			arguments.add(bytes("ON"));
			arguments.add(bytes("REDIRECT"));
			arguments.add(bytes(Long.toString(id)));
			arguments.add(bytes("BCAST"));
			for (byte[] prefix : this.prefixes) {
				arguments.add(bytes("PREFIX"));
				arguments.add(prefix);
			}
			connection.sendCommand(Protocol.Command.CLIENT, arguments.toArray(byte[][]::new));
			connection.getOne();
		}
		catch (JedisDataException ex) {
			throw new TrackingRefusedException(this.node + " refused CLIENT TRACKING: " + ex.getMessage(), ex);
		}
		try {
			connection.sendCommand(Protocol.Command.SUBSCRIBE, CHANNEL);
			connection.getOne();
		}
		catch (JedisDataException ex) {
			throw new TrackingRefusedException(
					this.node + " refused SUBSCRIBE __redis__:invalidate: " + ex.getMessage(), ex);
		}
	}

	@SuppressWarnings("unchecked")
	private void read(Connection connection) {
		while (!this.closing) {
			Object reply = connection.getUnflushedObject();
			if (!(reply instanceof List<?> message) || message.size() < 3 || !"message".equals(text(message.get(0)))) {
				continue;
			}
			Object keys = message.get(2);
			if (keys == null) {
				this.events.invalidated(this, null);
			}
			else if (keys instanceof List<?> list) {
				this.events.invalidated(this, (List<byte[]>) list);
			}
		}
	}

	private static @Nullable String text(@Nullable Object value) {
		return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.US_ASCII) : null;
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.US_ASCII);
	}

}
