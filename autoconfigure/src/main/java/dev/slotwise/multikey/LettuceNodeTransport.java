package dev.slotwise.multikey;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import dev.slotwise.routing.Chunks;
import dev.slotwise.routing.NodeAddress;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.output.ValueListOutput;
import io.lettuce.core.output.ValueOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandExpiryWriter;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import org.jspecify.annotations.Nullable;

/**
 * Sends node batches over Lettuce's multiplexed node connections, each flush as one
 * {@link StatefulRedisConnection#dispatch(java.util.Collection) dispatch} of many commands (one socket write), with
 * no thread of its own: Lettuce's I/O is asynchronous. Slot owners come from Lettuce's own partitions, a slot-indexed
 * array kept current by Lettuce's topology refresh.
 */
final class LettuceNodeTransport implements NodeTransport {

	private static final ByteArrayCodec CODEC = ByteArrayCodec.INSTANCE;

	private final StatefulRedisClusterConnection<byte[], byte[]> connection;

	private final AskingConnection asking;

	private final Runnable invalidateTopology;

	LettuceNodeTransport(StatefulRedisClusterConnection<byte[], byte[]> connection, AskingConnection asking,
			Runnable invalidateTopology) {
		this.connection = connection;
		this.asking = asking;
		this.invalidateTopology = invalidateTopology;
	}

	@Override
	public IntFunction<@Nullable NodeAddress> router() {
		Partitions partitions = this.connection.getPartitions();
		return (slot) -> {
			RedisClusterNode master = partitions.getMasterBySlot(slot);
			if (master == null) {
				return null;
			}
			RedisURI uri = master.getUri();
			return new NodeAddress(uri.getHost(), uri.getPort());
		};
	}

	@Override
	public CompletableFuture<List<Object>> send(NodeAddress node, List<Request> requests, int maxPerFlush) {
		CompletableFuture<List<Object>> result = new CompletableFuture<>();
		List<AsyncCommand<byte[], byte[], ?>> written = new ArrayList<>(requests.size());
		// A batch following an ASK goes over the engine's own connection, where nothing can come between an ASKING
		// and its command; everything else shares Lettuce's node connections with the application.
		boolean asks = requests.stream().anyMatch(Request::asking);
		CompletableFuture<StatefulRedisConnection<byte[], byte[]>> connecting = asks ? this.asking.node(node)
				: this.connection.getConnectionAsync(node.host(), node.port());
		connecting.whenComplete((nodeConnection, failure) -> {
			if (failure != null) {
				result.completeExceptionally(failure);
				return;
			}
			try {
				// One completion callback per command filling a slot of an array, instead of a future per reply
				// and an allOf over them: a 1,000-slot call completes 1,000 commands on the event loop.
				Object[] values = new Object[requests.size()];
				AtomicInteger remaining = new AtomicInteger(requests.size());
				int index = 0;
				for (List<Request> window : Chunks.of(requests, maxPerFlush)) {
					List<RedisCommand<byte[], byte[], ?>> batch = new ArrayList<>(window.size() * 2);
					for (Request request : window) {
						if (request.asking()) {
							batch.add(new AsyncCommand<>(new Command<>(CommandType.ASKING, new StatusOutput<>(CODEC))));
						}
						AsyncCommand<byte[], byte[], ?> command = command(request);
						int position = index++;
						command.whenComplete((value, error) -> {
							if (error == null) {
								values[position] = value;
							}
							else if (error instanceof RedisCommandExecutionException) {
								values[position] = new ErrorReply(String.valueOf(error.getMessage()));
							}
							else {
								result.completeExceptionally(error);
								return;
							}
							if (remaining.decrementAndGet() == 0) {
								result.complete(Arrays.asList(values));
							}
						});
						batch.add(command);
						synchronized (written) {
							written.add(command);
						}
					}
					if (result.isDone()) {
						return;
					}
					if (asks) {
						this.asking.dispatch(nodeConnection, batch);
					}
					else {
						write(nodeConnection, batch);
					}
				}
			}
			catch (RuntimeException ex) {
				result.completeExceptionally(ex);
			}
		});
		result.whenComplete((values, failure) -> {
			if (result.isCancelled()) {
				synchronized (written) {
					written.forEach((command) -> command.cancel(true));
				}
			}
		});
		return result;
	}

	/**
	 * Writes a batch past Lettuce's per-command timeout timers ({@link CommandExpiryWriter}, on when the client's
	 * {@code TimeoutOptions} are, as Spring Boot sets them): the engine bounds the whole call with its own timeout and
	 * cancels what is still in flight, so a timer per command would only cost (one per slot, 1,000 per call of 1,000
	 * random keys).
	 * @param node the node connection
	 * @param batch the commands, in order
	 */
	static void write(StatefulRedisConnection<byte[], byte[]> node, List<RedisCommand<byte[], byte[], ?>> batch) {
		if (node instanceof RedisChannelHandler<?, ?> handler
				&& handler.getChannelWriter() instanceof CommandExpiryWriter expiry) {
			expiry.getDelegate().write(batch);
		}
		else {
			node.dispatch(batch);
		}
	}

	private static AsyncCommand<byte[], byte[], ?> command(Request request) {
		CommandType type = CommandType.valueOf(request.command());
		CommandArgs<byte[], byte[]> args = new CommandArgs<>(CODEC);
		byte[][] arguments = request.args();
		if (type == CommandType.MSET || type == CommandType.SET) {
			for (int i = 0; i < arguments.length; i += 2) {
				args.addKey(arguments[i]).addValue(arguments[i + 1]);
			}
		}
		else {
			for (byte[] key : arguments) {
				args.addKey(key);
			}
		}
		CommandOutput<byte[], byte[], ?> output = switch (type) {
			case MGET -> new ValueListOutput<>(CODEC);
			case GET -> new ValueOutput<>(CODEC);
			case MSET, SET -> new StatusOutput<>(CODEC);
			default -> new IntegerOutput<>(CODEC);
		};
		return new AsyncCommand<>(new Command<>(type, output, args));
	}

	@Override
	public void invalidateTopology() {
		this.invalidateTopology.run();
	}

}
