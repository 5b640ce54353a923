package dev.slotwise.internal.multikey;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

import dev.slotwise.internal.routing.Chunks;
import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.SlotHash;
import io.lettuce.core.OrderingReadFromAccessor;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.models.role.RedisNodeDescription;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.output.ValueListOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandExpiryWriter;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ConnectionIntent;
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

	/** Lettuce's command type for each of ours, resolved once. */
	private static final Map<MultiKeyCommand, CommandType> COMMAND_TYPES = commandTypes();

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
				: connectionFor(node, requests);
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
						AtomicReference<@Nullable String> refusal = null;
						if (request.asking()) {
							refusal = askingFor(batch);
						}
						AtomicReference<@Nullable String> askingRefused = refusal;
						AsyncCommand<byte[], byte[], ?> command = command(request);
						int position = index++;
						command.whenComplete((value, error) -> {
							String refused = (askingRefused != null) ? askingRefused.get() : null;
							if (refused != null) {
								// ASKING refused (NOPERM for a user without it): the command then met only the
								// MOVED back to the migrating node, so the refusal is its reply, as over Jedis.
								values[position] = new ErrorReply(refused);
							}
							else if (error == null) {
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
	 * Adds an {@code ASKING} to a batch and returns where its error reply lands. Replies on one connection arrive in
	 * order, so the {@code ASKING}'s error is recorded before the reply of the command it precedes completes.
	 * @param batch the batch the command for which {@code ASKING} is sent follows in
	 * @return the server's error line for the {@code ASKING}, {@code null} while none came
	 */
	private static AtomicReference<@Nullable String> askingFor(List<RedisCommand<byte[], byte[], ?>> batch) {
		AtomicReference<@Nullable String> refusal = new AtomicReference<>();
		AsyncCommand<byte[], byte[], String> asking = new AsyncCommand<>(
				new Command<>(CommandType.ASKING, new StatusOutput<>(CODEC)));
		asking.whenComplete((ok, error) -> {
			if (error instanceof RedisCommandExecutionException) {
				refusal.set(String.valueOf(error.getMessage()));
			}
		});
		batch.add(asking);
		return refusal;
	}

	/**
	 * Returns the node connection a batch goes over: for reads ({@code MGET}, {@code EXISTS}) sent to the master that
	 * owns their slots, a node that the connection's {@link ReadFrom} selects among that master and its replicas, as
	 * Lettuce's own cluster reads do (replica connections are opened with {@code READONLY}); for writes, and for
	 * commands redirected to a node the partitions do not name as the slot's master, that node.
	 * @param node the node the engine routed the batch to
	 * @param requests the batch
	 * @return the connection
	 */
	private CompletableFuture<StatefulRedisConnection<byte[], byte[]>> connectionFor(NodeAddress node,
			List<Request> requests) {
		ReadFrom readFrom = this.connection.getReadFrom();
		if (readFrom == null || readFrom == ReadFrom.UPSTREAM || readFrom == ReadFrom.MASTER || !reads(requests)) {
			return this.connection.getConnectionAsync(node.host(), node.port());
		}
		// Every request of a batch routed by slot belongs to the same master, so one slot tells the candidates.
		Partitions partitions = this.connection.getPartitions();
		int slot = SlotHash.slot(requests.get(0).args()[0]);
		RedisClusterNode master = partitions.getMasterBySlot(slot);
		if (master == null || !node.host().equals(master.getUri().getHost())
				|| node.port() != master.getUri().getPort()) {
			return this.connection.getConnectionAsync(node.host(), node.port());
		}
		List<RedisNodeDescription> candidates = new ArrayList<>(4);
		for (RedisClusterNode member : partitions) {
			// Lettuce's rule: the master, and replicas of it that have received data (a replication offset).
			if (member == master
					|| (master.getNodeId().equals(member.getSlaveOf()) && member.getReplOffset() != 0)) {
				candidates.add(member);
			}
		}
		List<RedisNodeDescription> selection = readFrom.select(new ReadFrom.Nodes() {

			@Override
			public List<RedisNodeDescription> getNodes() {
				return candidates;
			}

			@Override
			public Iterator<RedisNodeDescription> iterator() {
				return candidates.iterator();
			}

		});
		if (selection.isEmpty()) {
			return CompletableFuture.failedFuture(new IllegalStateException(
					"No node to read slot " + slot + " from with ReadFrom " + readFrom + " among " + candidates));
		}
		RedisNodeDescription chosen = (selection.size() == 1 || OrderingReadFromAccessor.isOrderSensitive(readFrom))
				? selection.get(0) : selection.get(ThreadLocalRandom.current().nextInt(selection.size()));
		RedisURI uri = chosen.getUri();
		// Lettuce keys a master's connection as WRITE and opens READ connections (with READONLY) to replicas.
		ConnectionIntent intent = chosen.getRole().isUpstream() ? ConnectionIntent.WRITE : ConnectionIntent.READ;
		return this.connection.getConnectionAsync(uri.getHost(), uri.getPort(), intent);
	}

	private static boolean reads(List<Request> requests) {
		for (Request request : requests) {
			if (request.asking()
					|| (request.command() != MultiKeyCommand.MGET && request.command() != MultiKeyCommand.EXISTS)) {
				return false;
			}
		}
		return true;
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
		MultiKeyCommand command = request.command();
		CommandArgs<byte[], byte[]> args = new CommandArgs<>(CODEC);
		byte[][] arguments = request.args();
		if (command.withValues()) {
			for (int i = 0; i < arguments.length; i += 2) {
				args.addKey(arguments[i]).addValue(arguments[i + 1]);
			}
		}
		else {
			for (byte[] key : arguments) {
				args.addKey(key);
			}
		}
		CommandOutput<byte[], byte[], ?> output = switch (command.reply()) {
			case VALUES -> new ValueListOutput<>(CODEC);
			case STATUS -> new StatusOutput<>(CODEC);
			case INTEGER -> new IntegerOutput<>(CODEC);
		};
		return new AsyncCommand<>(new Command<>(COMMAND_TYPES.get(command), output, args));
	}

	private static Map<MultiKeyCommand, CommandType> commandTypes() {
		Map<MultiKeyCommand, CommandType> types = new EnumMap<>(MultiKeyCommand.class);
		for (MultiKeyCommand command : MultiKeyCommand.values()) {
			types.put(command, CommandType.valueOf(command.name()));
		}
		return types;
	}

	@Override
	public void invalidateTopology() {
		this.invalidateTopology.run();
	}

}
