package dev.slotwise.internal.multikey;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.LongConsumer;

import dev.slotwise.internal.compat.LettuceInternals;
import dev.slotwise.internal.routing.Chunks;
import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.RedirectKind;
import dev.slotwise.internal.routing.SlotHash;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.event.AskRedirectionEvent;
import io.lettuce.core.cluster.event.MovedRedirectionEvent;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.models.role.RedisNodeDescription;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ConnectionIntent;
import io.lettuce.core.protocol.ReadOnlyCommands;
import io.lettuce.core.protocol.RedisCommand;
import io.netty.util.Timeout;
import io.lettuce.core.tracing.TraceContext;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;

/**
 * Sends node batches over Lettuce's multiplexed node connections, with no thread of its
 * own: Lettuce's I/O is asynchronous. Each flush window of a batch is handed to the node
 * connection's event loop as one message ({@link LettuceBatchWriter}) of the engine's own
 * light commands ({@link LettuceBatchCommand}), whose replies fill one future per node
 * batch. Slot owners come from Lettuce's own partitions, a slot-indexed array kept
 * current by Lettuce's topology refresh.
 */
public final class LettuceNodeTransport implements NodeTransport {

	/**
	 * Spring Data Redis's translation of Lettuce's exceptions, which the call's failures
	 * follow.
	 */
	private static final LettuceExceptionConverter EXCEPTIONS = new LettuceExceptionConverter();

	/** Lettuce's command type for each of ours, resolved once. */
	private static final Map<MultiKeyCommand, CommandType> COMMAND_TYPES = commandTypes();

	private final StatefulRedisClusterConnection<byte[], byte[]> connection;

	private final AskingConnection asking;

	private final LongConsumer invalidateTopology;

	private final LettuceCommandTracing tracing;

	/**
	 * The commands the client counts as read-only, which its {@code ReadFrom} may send to
	 * replicas.
	 */
	private final Set<MultiKeyCommand> reads;

	public LettuceNodeTransport(StatefulRedisClusterConnection<byte[], byte[]> connection, AskingConnection asking,
			LongConsumer invalidateTopology) {
		this.connection = connection;
		this.asking = asking;
		this.invalidateTopology = invalidateTopology;
		this.tracing = LettuceCommandTracing.of(connection.getResources());
		this.reads = readOnly(connection.getOptions().getReadOnlyCommands());
	}

	/**
	 * Returns the commands the client counts as read-only, asked as Lettuce's cluster
	 * routing asks it for its own commands ({@code ClientOptions.getReadOnlyCommands()}),
	 * by command type: the engine's commands are the same commands, so a predicate that
	 * makes {@code MGET} a write keeps Slotwise's {@code MGET}s on masters too.
	 * @param predicate the client's predicate
	 * @return the engine's commands it counts as read-only
	 */
	static Set<MultiKeyCommand> readOnly(ReadOnlyCommands.ReadOnlyPredicate predicate) {
		Set<MultiKeyCommand> reads = EnumSet.noneOf(MultiKeyCommand.class);
		for (MultiKeyCommand command : MultiKeyCommand.values()) {
			try {
				if (predicate.isReadOnly(new Command<>(COMMAND_TYPES.get(command), null))) {
					reads.add(command);
				}
			}
			catch (RuntimeException ex) {
				// A predicate that needs more than the type (arguments, output): a write,
				// the safe side.
			}
		}
		return Set.copyOf(reads);
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
	public @Nullable DataAccessException translate(Throwable failure) {
		return (failure instanceof Exception ex) ? EXCEPTIONS.convert(ex) : null;
	}

	@Override
	public CompletableFuture<List<Object>> send(NodeAddress node, List<Request> requests, int maxPerFlush) {
		LettuceBatchCommand.Batch batch = new LettuceBatchCommand.Batch(requests.size());
		// Read here, on the sending thread, where the engine made the batch's observation
		// current.
		boolean traced = this.tracing.isEnabled();
		TraceContext traceContext = traced ? this.tracing.currentContext() : null;
		// A batch following an ASK goes over the engine's own connection, where nothing
		// can come between an ASKING and its command; everything else shares Lettuce's
		// node connections with the application.
		boolean asks = requests.stream().anyMatch(Request::asking);
		CompletableFuture<StatefulRedisConnection<byte[], byte[]>> connecting = asks ? this.asking.node(node)
				: connectionFor(node, requests);
		connecting.whenComplete((nodeConnection, failure) -> {
			if (failure != null) {
				batch.completeExceptionally(failure);
				return;
			}
			try {
				int index = 0;
				for (List<Request> window : Chunks.of(requests, maxPerFlush)) {
					// A batch whose call ended meanwhile (cancelled, failed, timed out)
					// writes nothing more; the commands it handed over already report
					// themselves done, so Lettuce skips those not yet on the wire.
					if (batch.isDone()) {
						return;
					}
					List<RedisCommand<byte[], byte[], ?>> commands = new ArrayList<>(window.size() * (asks ? 2 : 1));
					for (Request request : window) {
						LettuceBatchCommand asking = null;
						if (request.asking()) {
							asking = LettuceBatchCommand.asking(batch);
							commands.add(traced ? this.tracing.wrap(asking, traceContext) : asking);
						}
						MultiKeyCommand command = request.command();
						LettuceBatchCommand single = LettuceBatchCommand.request(batch, index++, command,
								COMMAND_TYPES.get(command), request.args(), asking);
						commands.add(traced ? this.tracing.wrap(single, traceContext) : single);
					}
					if (asks) {
						this.asking.dispatch(nodeConnection, commands);
					}
					else {
						LettuceBatchWriter.write(nodeConnection, commands);
					}
				}
			}
			catch (RuntimeException ex) {
				batch.completeExceptionally(ex);
			}
		});
		return batch;
	}

	/**
	 * Returns the node connection a batch goes over: for reads (the commands the client's
	 * {@code ClientOptions.getReadOnlyCommands()} counts as read-only: {@code MGET} and
	 * {@code EXISTS} by default) sent to the master that owns their slots, a node that
	 * the connection's {@link ReadFrom} selects among that master and its replicas, as
	 * Lettuce's own cluster reads do (replica connections are opened with
	 * {@code READONLY}); for writes, and for commands a redirect sent to a node, that
	 * node ({@link Request#replicaMayServe(List, Set)}).
	 * @param node the node the engine routed the batch to
	 * @param requests the batch
	 * @return the connection
	 */
	private CompletableFuture<StatefulRedisConnection<byte[], byte[]>> connectionFor(NodeAddress node,
			List<Request> requests) {
		ReadFrom readFrom = this.connection.getReadFrom();
		if (readFrom == null || readFrom == ReadFrom.UPSTREAM || readFrom == ReadFrom.MASTER
				|| !Request.replicaMayServe(requests, this.reads)) {
			return this.connection.getConnectionAsync(node.host(), node.port());
		}
		// Every request of a batch routed by slot belongs to the same master, so one slot
		// tells the candidates.
		Partitions partitions = this.connection.getPartitions();
		int slot = SlotHash.slot(requests.get(0).args()[0]);
		RedisClusterNode master = partitions.getMasterBySlot(slot);
		if (master == null || !node.host().equals(master.getUri().getHost())
				|| node.port() != master.getUri().getPort()) {
			return this.connection.getConnectionAsync(node.host(), node.port());
		}
		List<RedisNodeDescription> candidates = new ArrayList<>(4);
		for (RedisClusterNode member : partitions) {
			// Lettuce's rule: the master, and replicas of it that have received data (a
			// replication offset).
			if (member == master || (master.getNodeId().equals(member.getSlaveOf()) && member.getReplOffset() != 0)) {
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
		RedisNodeDescription chosen = (selection.size() == 1 || LettuceInternals.isOrderSensitive(readFrom))
				? selection.get(0) : selection.get(ThreadLocalRandom.current().nextInt(selection.size()));
		RedisURI uri = chosen.getUri();
		// Lettuce keys a master's connection as WRITE and opens READ connections (with
		// READONLY) to replicas.
		ConnectionIntent intent = chosen.getRole().isUpstream() ? ConnectionIntent.WRITE : ConnectionIntent.READ;
		return this.connection.getConnectionAsync(uri.getHost(), uri.getPort(), intent);
	}

	private static Map<MultiKeyCommand, CommandType> commandTypes() {
		Map<MultiKeyCommand, CommandType> types = new EnumMap<>(MultiKeyCommand.class);
		for (MultiKeyCommand command : MultiKeyCommand.values()) {
			types.put(command, CommandType.valueOf(command.name()));
		}
		return types;
	}

	/**
	 * Publishes the redirect on the client's event bus as Lettuce's cluster writer
	 * publishes those its own commands meet ({@code ClusterDistributionChannelWriter}):
	 * the command's type, its first key decoded as UTF-8, the slot and the error line;
	 * applications and tools that listen for {@link MovedRedirectionEvent} and
	 * {@link AskRedirectionEvent} see the engine's redirects too. (Lettuce's adaptive
	 * refresh trigger is not on the bus: the engine asks for a refresh itself after
	 * {@code MOVED}.)
	 */
	@Override
	public void redirected(RedirectKind kind, MultiKeyCommand command, byte[] firstKey, int slot, String message) {
		String key = new String(firstKey, StandardCharsets.UTF_8);
		String type = COMMAND_TYPES.get(command).toString();
		this.connection.getResources()
			.eventBus()
			.publish((kind == RedirectKind.ASK) ? new AskRedirectionEvent(type, key, slot, message)
					: new MovedRedirectionEvent(type, key, slot, message));
	}

	@Override
	public void invalidateTopology() {
		this.invalidateTopology.accept(System.nanoTime());
	}

	@Override
	public void invalidateTopology(long routedAt) {
		this.invalidateTopology.accept(routedAt);
	}

	/**
	 * Schedules on the timer of the client's {@code ClientResources} (the one Lettuce's
	 * own command timeouts use), which ends when the client's resources shut down.
	 */
	@Override
	public Runnable schedule(Runnable task, long delayNanos) {
		Timeout timeout = this.connection.getResources()
			.timer()
			.newTimeout((ignored) -> task.run(), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
		return timeout::cancel;
	}

}
