package dev.slotwise.internal.multikey;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import dev.slotwise.internal.routing.NodeAddress;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.RedisCommand;
import org.jspecify.annotations.Nullable;

/**
 * The engine's own Lettuce cluster connection, for batches that follow an {@code ASK}
 * redirect.
 * <p>
 * {@code ASKING} is state of the connection that carries it and holds for the next
 * command only, so it must reach the server immediately before the command it is for.
 * Lettuce's node connections are shared by every thread of the application, and where a
 * batch cannot be handed over as one message ({@link LettuceBatchWriter}: a reconnecting
 * channel, another Lettuce) it is written command by command: another thread's command
 * can land between the two (the server then answers {@code MOVED} back to the migrating
 * node, and the ASKING is spent on a stranger's command). Batches written here go over
 * node connections nobody else uses, one batch at a time.
 * <p>
 * The connection is opened asynchronously at the first {@code ASK} (so never on a healthy
 * cluster) and closed with the client: Lettuce closes every connection of a client when
 * the factory shuts the client down. A new client (the factory restarted) gets a new
 * connection.
 */
public final class AskingConnection {

	private final Supplier<@Nullable AbstractRedisClient> client;

	private final Object writeLock = new Object();

	private @Nullable AbstractRedisClient connectedClient;

	private @Nullable CompletableFuture<StatefulRedisClusterConnection<byte[], byte[]>> connection;

	/**
	 * Creates an instance that connects through whatever client the supplier returns at
	 * that moment.
	 * @param client the factory's current native client
	 */
	public AskingConnection(Supplier<@Nullable AbstractRedisClient> client) {
		this.client = client;
	}

	/**
	 * Returns this connection's own link to a node.
	 * @param node the node
	 * @return the node connection, completing when it is open
	 */
	CompletableFuture<StatefulRedisConnection<byte[], byte[]>> node(NodeAddress node) {
		return cluster().thenCompose((cluster) -> cluster.getConnectionAsync(node.host(), node.port()));
	}

	/**
	 * Writes a batch to a node connection of this instance with no other batch between
	 * its commands.
	 * @param node a connection from {@link #node(NodeAddress)}
	 * @param batch the commands, in order
	 */
	void dispatch(StatefulRedisConnection<byte[], byte[]> node, List<RedisCommand<byte[], byte[], ?>> batch) {
		// Each batch is queued (or, on the connection's own event loop, written) as a
		// whole before the next starts.
		synchronized (this.writeLock) {
			LettuceBatchWriter.write(node, batch);
		}
	}

	private synchronized CompletableFuture<StatefulRedisClusterConnection<byte[], byte[]>> cluster() {
		AbstractRedisClient current = this.client.get();
		CompletableFuture<StatefulRedisClusterConnection<byte[], byte[]>> existing = this.connection;
		if (existing != null && current == this.connectedClient && !existing.isCompletedExceptionally()
				&& (!existing.isDone() || existing.join().isOpen())) {
			return existing;
		}
		if (!(current instanceof RedisClusterClient cluster)) {
			return CompletableFuture.failedFuture(new IllegalStateException(
					"The connection factory has no running Redis Cluster client to follow an ASK redirect with"));
		}
		this.connectedClient = current;
		this.connection = cluster.connectAsync(ByteArrayCodec.INSTANCE);
		return this.connection;
	}

}
