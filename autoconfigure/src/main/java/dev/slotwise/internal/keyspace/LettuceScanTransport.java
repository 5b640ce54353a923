package dev.slotwise.internal.keyspace;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import dev.slotwise.internal.multikey.LettuceBatchWriter;
import dev.slotwise.internal.routing.NodeAddress;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.protocol.ConnectionIntent;
import org.jspecify.annotations.Nullable;

/**
 * Sends the walks' commands over Lettuce's multiplexed node connections of one cluster
 * connection, without a thread of its own: every future completes from Lettuce's I/O.
 * Nodes are addressed by id, as Lettuce's partitions know them.
 */
final class LettuceScanTransport implements ScanTransport {

	private final StatefulRedisClusterConnection<byte[], byte[]> connection;

	private final Runnable invalidateTopology;

	LettuceScanTransport(StatefulRedisClusterConnection<byte[], byte[]> connection, Runnable invalidateTopology) {
		this.connection = connection;
		this.invalidateTopology = invalidateTopology;
	}

	@Override
	public List<NodeAddress> seeds() {
		List<NodeAddress> seeds = new ArrayList<>();
		for (RedisClusterNode node : this.connection.getPartitions()) {
			RedisURI uri = node.getUri();
			if (uri != null && uri.getHost() != null) {
				seeds.add(new NodeAddress(uri.getHost(), uri.getPort()));
			}
		}
		return seeds;
	}

	@Override
	public CompletableFuture<String> clusterNodes(ClusterNodes.Node node) {
		return on(node, RedisAsyncCommands::clusterNodes);
	}

	@Override
	public CompletableFuture<String> clusterNodes(NodeAddress address) {
		return call(this.connection.getConnectionAsync(address.host(), address.port()),
				RedisAsyncCommands::clusterNodes);
	}

	@Override
	public CompletableFuture<Page> scan(ClusterNodes.Node node, String cursor, byte @Nullable [] match,
			@Nullable Long count, @Nullable String type) {
		KeyScanArgs args = new KeyScanArgs();
		if (type != null) {
			args.type(type);
		}
		if (match != null) {
			args.match(match);
		}
		if (count != null) {
			args.limit(count);
		}
		return on(node, (commands) -> commands.scan(ScanCursor.of(cursor), args)).thenApply(
				(KeyScanCursor<byte[]> page) -> new Page(page.isFinished() ? "0" : page.getCursor(), page.getKeys()));
	}

	@Override
	public CompletableFuture<List<TypedKey>> keysInSlots(ClusterNodes.Node node, int[] slots, boolean withTypes) {
		return connect(node).thenCompose((nodeConnection) -> {
			RedisAsyncCommands<byte[], byte[]> commands = nodeConnection.async();
			List<CompletableFuture<List<byte[]>>> perSlot = new ArrayList<>(slots.length);
			for (int slot : slots) {
				perSlot.add(commands.clusterCountKeysInSlot(slot)
					.toCompletableFuture()
					.thenCompose((count) -> (count == 0) ? CompletableFuture.completedFuture(List.<byte[]>of())
							: commands.clusterGetKeysInSlot(slot, (int) (count + 16)).toCompletableFuture()));
			}
			return all(perSlot).thenCompose((lists) -> {
				List<byte[]> keys = new ArrayList<>();
				lists.forEach(keys::addAll);
				if (!withTypes) {
					return CompletableFuture
						.completedFuture(keys.stream().map((key) -> new TypedKey(key, null)).toList());
				}
				List<CompletableFuture<TypedKey>> typed = new ArrayList<>(keys.size());
				for (byte[] key : keys) {
					typed.add(commands.type(key).toCompletableFuture().thenApply((type) -> new TypedKey(key, type)));
				}
				return all(typed);
			});
		}).exceptionallyCompose(LettuceScanTransport::classify);
	}

	@Override
	public CompletableFuture<boolean[]> unlink(ClusterNodes.Node node, List<byte[][]> groups) {
		// The multi-key engine's batch: encoded here, one write, no per-command future or
		// timer.
		return connect(node).thenCompose((nodeConnection) -> LettuceBatchWriter.unlink(nodeConnection, groups));
	}

	@Override
	public CompletableFuture<List<byte[]>> keys(ClusterNodes.Node node, byte[] pattern) {
		// keysLegacy takes the pattern as the key type: binary patterns pass unchanged.
		return on(node, (commands) -> commands.keysLegacy(pattern));
	}

	@Override
	public void invalidateTopology() {
		this.invalidateTopology.run();
	}

	@Override
	public boolean readFromReplicas() {
		ReadFrom readFrom = this.connection.getReadFrom();
		return readFrom == ReadFrom.REPLICA || readFrom == ReadFrom.REPLICA_PREFERRED
				|| readFrom == ReadFrom.ANY_REPLICA;
	}

	private <T> CompletableFuture<T> on(ClusterNodes.Node node,
			Function<RedisAsyncCommands<byte[], byte[]>, CompletionStage<T>> command) {
		return call(connect(node), command);
	}

	private CompletableFuture<StatefulRedisConnection<byte[], byte[]>> connect(ClusterNodes.Node node) {
		ConnectionIntent intent = node.master() ? ConnectionIntent.WRITE : ConnectionIntent.READ;
		if (this.connection.getPartitions().getPartitionByNodeId(node.id()) != null) {
			return this.connection.getConnectionAsync(node.id(), intent);
		}
		NodeAddress address = node.address();
		if (address == null) {
			return CompletableFuture.failedFuture(new IllegalStateException("Node " + node.id() + " has no address"));
		}
		// A node Lettuce's partitions do not know yet (they refresh on their own
		// schedule): by address.
		this.invalidateTopology.run();
		return this.connection.getConnectionAsync(address.host(), address.port(), intent);
	}

	private static <T> CompletableFuture<T> call(CompletableFuture<StatefulRedisConnection<byte[], byte[]>> connecting,
			Function<RedisAsyncCommands<byte[], byte[]>, CompletionStage<T>> command) {
		return connecting.thenCompose((nodeConnection) -> command.apply(nodeConnection.async()))
			.exceptionallyCompose(LettuceScanTransport::classify);
	}

	private static <T> CompletableFuture<T> classify(Throwable failure) {
		Throwable cause = failure;
		while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
			cause = cause.getCause();
		}
		if (cause instanceof RedisCommandExecutionException) {
			return CompletableFuture.failedFuture(new ServerError(String.valueOf(cause.getMessage()), cause));
		}
		return CompletableFuture.failedFuture(cause);
	}

	private static <T> CompletableFuture<List<T>> all(List<CompletableFuture<T>> futures) {
		return CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0]))
			.thenApply((ignored) -> futures.stream().map(CompletableFuture::join).toList());
	}

	static String text(byte[] bytes) {
		return new String(bytes, StandardCharsets.UTF_8);
	}

}
