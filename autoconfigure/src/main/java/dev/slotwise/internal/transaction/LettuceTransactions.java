package dev.slotwise.internal.transaction;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;

/**
 * Cluster transactions over Lettuce. Never on the shared cluster connection: a
 * {@code MULTI} there would take in the commands every other thread sends meanwhile. Each
 * transaction runs on a dedicated connection to the slot's master, opened through a
 * standalone {@link RedisClient} on the cluster client's {@code ClientResources}, options
 * and node URIs (credentials, TLS), kept idle per node between transactions. Those
 * connections do not reconnect by themselves: a reconnecting Lettuce connection replays
 * the commands it buffered, which for a transaction would send queued commands without
 * their {@code MULTI}; a dropped one fails the transaction instead.
 * <p>
 * One instance per connection factory; {@link #close()} closes the idle connections and
 * the standalone client.
 */
public final class LettuceTransactions implements AutoCloseable {

	private static final LettuceExceptionConverter EXCEPTIONS = new LettuceExceptionConverter();

	/** Idle connections kept per node between transactions. */
	private static final int MAX_IDLE_PER_NODE = 8;

	private final Supplier<@Nullable AbstractRedisClient> clusterClient;

	private final Object lock = new Object();

	private @Nullable AbstractRedisClient connectedClient;

	private @Nullable RedisClient nodeClient;

	private final Map<String, Deque<StatefulRedisConnection<byte[], byte[]>>> idle = new HashMap<>();

	private boolean closed;

	/**
	 * Creates an instance that connects through whatever cluster client the supplier
	 * returns at that moment (a restarted factory has a new one).
	 * @param clusterClient the factory's current native client
	 */
	public LettuceTransactions(Supplier<@Nullable AbstractRedisClient> clusterClient) {
		this.clusterClient = clusterClient;
	}

	/**
	 * Creates the transaction state of one cluster connection.
	 * @param timeout the connection's command timeout
	 * @param pipelined whether the connection pipelines
	 * @param observer sees each transaction end
	 * @return the transaction state
	 */
	public ClusterTransaction create(Duration timeout, BooleanSupplier pipelined, TransactionObserver observer) {
		return new SlotTransaction(new Sessions(timeout.toMillis()), pipelined, observer);
	}

	private Borrowed borrow(int slot) {
		RedisClusterClient cluster;
		RedisClient client;
		RedisURI uri;
		synchronized (this.lock) {
			if (this.closed) {
				throw new DataAccessResourceFailureException("The connection factory is closed");
			}
			AbstractRedisClient current = this.clusterClient.get();
			if (!(current instanceof RedisClusterClient running)) {
				throw new DataAccessResourceFailureException(
						"The connection factory has no running Redis Cluster client to open a transaction with");
			}
			cluster = running;
			client = nodeClient(cluster);
			RedisClusterNode master = cluster.getPartitions().getMasterBySlot(slot);
			if (master == null || master.getUri() == null) {
				throw new DataAccessResourceFailureException("No master serves slot " + slot);
			}
			uri = master.getUri();
			Deque<StatefulRedisConnection<byte[], byte[]>> idleHere = this.idle.get(key(uri));
			while (idleHere != null && !idleHere.isEmpty()) {
				StatefulRedisConnection<byte[], byte[]> connection = idleHere.pollFirst();
				if (connection.isOpen()) {
					return new Borrowed(connection, key(uri));
				}
				connection.closeAsync();
			}
		}
		try {
			return new Borrowed(client.connect(ByteArrayCodec.INSTANCE, uri), key(uri));
		}
		catch (RuntimeException ex) {
			DataAccessException translated = EXCEPTIONS.convert(ex);
			throw (translated != null) ? translated : ex;
		}
	}

	private void giveBack(StatefulRedisConnection<byte[], byte[]> connection, String node, boolean reusable) {
		synchronized (this.lock) {
			if (reusable && !this.closed && connection.isOpen()) {
				Deque<StatefulRedisConnection<byte[], byte[]>> idleHere = this.idle.computeIfAbsent(node,
						(key) -> new ArrayDeque<>());
				if (idleHere.size() < MAX_IDLE_PER_NODE) {
					idleHere.addFirst(connection);
					return;
				}
			}
		}
		connection.closeAsync();
	}

	/**
	 * Returns the standalone client of the running cluster client, made anew (and the old
	 * one's connections closed) when the factory restarted.
	 */
	private RedisClient nodeClient(RedisClusterClient cluster) {
		RedisClient client = this.nodeClient;
		if (client != null && this.connectedClient == cluster) {
			return client;
		}
		closeIdle();
		if (client != null) {
			client.shutdownAsync();
		}
		client = RedisClient.create(cluster.getResources());
		// No reconnect and no buffering while disconnected: nothing queued may ever reach
		// the server outside MULTI.
		client.setOptions(ClientOptions.copyOf(cluster.getOptions())
			.mutate()
			.autoReconnect(false)
			.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
			.build());
		this.nodeClient = client;
		this.connectedClient = cluster;
		return client;
	}

	private void closeIdle() {
		List<StatefulRedisConnection<byte[], byte[]>> closing = new ArrayList<>();
		this.idle.values().forEach(closing::addAll);
		this.idle.clear();
		closing.forEach(StatefulConnection::closeAsync);
	}

	private static String key(RedisURI uri) {
		return uri.getHost() + ":" + uri.getPort();
	}

	/**
	 * Closes the idle connections and the standalone client, as the factory stops; a
	 * restarted factory's first transaction opens new ones.
	 */
	public void stop() {
		shutdown(false);
	}

	/**
	 * Closes the idle connections and the standalone client for good.
	 */
	@Override
	public void close() {
		shutdown(true);
	}

	private void shutdown(boolean forGood) {
		RedisClient client;
		synchronized (this.lock) {
			this.closed |= forGood;
			closeIdle();
			client = this.nodeClient;
			this.nodeClient = null;
			this.connectedClient = null;
		}
		if (client != null) {
			// The resources are the factory's: shutting this client down leaves them
			// running.
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	private final class Sessions implements NodeSessions {

		private final long timeoutMillis;

		Sessions(long timeoutMillis) {
			this.timeoutMillis = timeoutMillis;
		}

		@Override
		public Session open(int slot, byte[] key) {
			Borrowed borrowed = borrow(slot);
			// Spring Data Redis's standalone connection, all of whose commands (there is
			// no shared connection) go to the dedicated one the provider hands out: this
			// node connection. It is never closed: the connection is given back here.
			LettuceConnection standalone = new LettuceConnection(null, new FixedProvider(borrowed.connection()),
					this.timeoutMillis, 0);
			return new LettuceSession(standalone, borrowed.node(),
					(reusable) -> giveBack(borrowed.connection(), borrowed.node(), reusable));
		}

		@Override
		public void invalidateTopology() {
			if (LettuceTransactions.this.clusterClient.get() instanceof RedisClusterClient cluster) {
				cluster.refreshPartitionsAsync();
			}
		}

	}

	private record Borrowed(StatefulRedisConnection<byte[], byte[]> connection, String node) {
	}

	private record LettuceSession(LettuceConnection connection, String node,
			java.util.function.Consumer<Boolean> releaser) implements NodeSessions.Session {

		@Override
		public void release(boolean reusable) {
			this.releaser.accept(reusable);
		}

	}

	/**
	 * Hands Spring Data Redis the one node connection, and leaves its release to the
	 * transaction.
	 */
	private record FixedProvider(
			StatefulRedisConnection<byte[], byte[]> connection) implements LettuceConnectionProvider {

		@Override
		public <T extends StatefulConnection<?, ?>> CompletionStage<T> getConnectionAsync(Class<T> connectionType) {
			return CompletableFuture.completedFuture(connectionType.cast(this.connection));
		}

		@Override
		public void release(StatefulConnection<?, ?> connection) {
		}

		@Override
		public CompletableFuture<Void> releaseAsync(StatefulConnection<?, ?> connection) {
			return CompletableFuture.completedFuture(null);
		}

	}

}
