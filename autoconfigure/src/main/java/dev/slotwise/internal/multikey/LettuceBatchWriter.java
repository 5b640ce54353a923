package dev.slotwise.internal.multikey;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.slotwise.internal.observed.Observed;
import dev.slotwise.internal.compat.LettuceInternals;
import io.lettuce.core.CommandListenerWriter;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.event.command.CommandFailedEvent;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.lettuce.core.event.command.CommandSucceededEvent;
import io.lettuce.core.protocol.CommandExpiryWriter;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.CommandWrapper;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.tracing.TraceContext;
import io.netty.channel.Channel;

/**
 * Hands a node batch to Lettuce's event loop as one message: one task on the loop, one
 * pass through the channel pipeline, one buffer the batch is encoded into, one socket
 * write.
 * <p>
 * Lettuce's own {@code write(Collection)} writes command by command: called from an
 * application thread, each command becomes a Netty write task, a pass through the
 * pipeline, a buffer, a promise and a listener; for a batch of 1,000 slots that was most
 * of the event loop's time (profiled) and its tasks cost the caller as much. Lettuce's
 * {@code CommandHandler} takes a {@link List} of commands as one message itself (it puts
 * each on its reply stack in order and its encoder writes them into one buffer), but the
 * endpoint keeps its channel in a protected field, read through {@link LettuceInternals}.
 * Where it cannot be (a Lettuce without it), where the channel is not active
 * (reconnecting, closed), or for a connection that is not a plain endpoint, the batch
 * goes through the endpoint.
 * <p>
 * A client with {@code CommandListener}s gives each node connection a
 * {@link CommandListenerWriter} in front of the endpoint. Its listener is read through
 * {@link LettuceInternals} and told of each command of the batch as that writer tells it
 * of Lettuce's own (started when written; succeeded or failed when done), so the
 * listeners see the engine's commands either way; where the listener cannot be read, the
 * batch goes through that writer.
 * <p>
 * What the direct path leaves out: the commands do not count towards Lettuce's
 * {@code requestQueueSize} (off unless configured), and a batch written while a
 * reconnected channel replays its buffered commands may reach the server before them; a
 * command of the engine never depends on the order of another caller's commands.
 */
public final class LettuceBatchWriter {

	private LettuceBatchWriter() {
	}

	/**
	 * Sends one {@code UNLINK} per group of keys to a node, as one batch (the cache clear
	 * of the keyspace walks removes each page of keys on the master that returned it). No
	 * per-command timer: the caller bounds the batch and cancels the returned future,
	 * which makes Lettuce skip or drop what is left.
	 * @param node the node connection
	 * @param groups the keys, each group of one slot
	 * @return per group, whether the node executed it (answered a count) rather than
	 * refusing it (an error reply)
	 */
	public static CompletableFuture<boolean[]> unlink(StatefulRedisConnection<byte[], byte[]> node,
			List<byte[][]> groups) {
		LettuceBatchCommand.Batch batch = new LettuceBatchCommand.Batch(groups.size());
		List<RedisCommand<byte[], byte[], ?>> commands = new ArrayList<>(groups.size());
		// Observed as Lettuce observes its own commands, as the engine's batches are:
		// written past Lettuce's API, they would otherwise be the one part of a clear
		// tracing does not see.
		LettuceCommandTracing tracing = LettuceCommandTracing.of(node.getResources());
		TraceContext context = tracing.isEnabled() ? tracing.currentContext() : null;
		for (int i = 0; i < groups.size(); i++) {
			commands.add(tracing.wrap(LettuceBatchCommand.request(batch, i, MultiKeyCommand.UNLINK, CommandType.UNLINK,
					groups.get(i), null), context));
		}
		write(node, commands);
		CompletableFuture<boolean[]> removed = batch.thenApply((replies) -> {
			boolean[] done = new boolean[replies.size()];
			for (int i = 0; i < done.length; i++) {
				done[i] = replies.get(i) instanceof Long;
			}
			return done;
		});
		removed.whenComplete((ignored, failure) -> {
			if (failure != null) {
				batch.cancel(false);
			}
		});
		return removed;
	}

	/**
	 * Writes a batch past Lettuce's per-command timeout timers
	 * ({@link CommandExpiryWriter}, on when the client's {@code TimeoutOptions} are, as
	 * Spring Boot sets them): the engine bounds the whole call with its own timeout and
	 * cancels what is still in flight, so a timer per command would only cost (one per
	 * slot, 1,000 per call of 1,000 random keys).
	 * @param node the node connection
	 * @param batch the commands, in order
	 */
	static void write(StatefulRedisConnection<byte[], byte[]> node, List<RedisCommand<byte[], byte[], ?>> batch) {
		if (!(node instanceof RedisChannelHandler<?, ?> handler)) {
			node.dispatch(batch);
			return;
		}
		RedisChannelWriter writer = handler.getChannelWriter();
		List<RedisCommand<byte[], byte[], ?>> commands = batch;
		if (writer instanceof CommandListenerWriter listening) {
			CommandListener listener = LettuceInternals.commandListener(listening);
			if (listener == null) {
				// Lettuce's own path: its writer tells the listeners.
				writer.write(batch);
				return;
			}
			commands = listened(batch, listener);
			writer = listening.getDelegate();
		}
		if (writer instanceof CommandExpiryWriter expiry) {
			writer = expiry.getDelegate();
		}
		Channel channel = LettuceInternals.activeChannel(writer);
		if (channel == null) {
			writer.write(commands);
			return;
		}
		List<RedisCommand<byte[], byte[], ?>> written = commands;
		channel.writeAndFlush(written).addListener((done) -> {
			if (!done.isSuccess()) {
				// Not handed to Lettuce's handler (the channel closed on the way):
				// nothing will answer these.
				for (RedisCommand<byte[], byte[], ?> command : written) {
					command.completeExceptionally(done.cause());
				}
			}
		});
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static List<RedisCommand<byte[], byte[], ?>> listened(List<RedisCommand<byte[], byte[], ?>> batch,
			CommandListener listener) {
		List<RedisCommand<byte[], byte[], ?>> listened = new ArrayList<>(batch.size());
		long now = System.currentTimeMillis();
		for (RedisCommand<byte[], byte[], ?> command : batch) {
			CommandStartedEvent started = new CommandStartedEvent((RedisCommand) command, now);
			listener.commandStarted(started);
			listened.add(new ListenedCommand<>(command, listener, started.getContext(), now));
		}
		return listened;
	}

	/**
	 * Tells a {@link CommandListener} how a command of a node batch ended, as Lettuce's
	 * {@link CommandListenerWriter} does for the commands it writes.
	 */
	private static final class ListenedCommand<T> extends CommandWrapper<byte[], byte[], T> {

		private final CommandListener listener;

		private final Map<String, Object> context;

		private final long startedAt;

		ListenedCommand(RedisCommand<byte[], byte[], T> command, CommandListener listener, Map<String, Object> context,
				long startedAt) {
			super(command);
			this.listener = listener;
			this.context = context;
			this.startedAt = startedAt;
		}

		@Override
		@SuppressWarnings({ "unchecked", "rawtypes" })
		protected void doOnComplete() {
			if (getOutput() != null && getOutput().hasError()) {
				this.listener.commandFailed(new CommandFailedEvent((RedisCommand) this.command, this.context,
						new RedisCommandExecutionException(getOutput().getError())));
			}
			else {
				this.listener.commandSucceeded(new CommandSucceededEvent((RedisCommand) this.command, this.context,
						this.startedAt, System.currentTimeMillis()));
			}
		}

		@Override
		@SuppressWarnings({ "unchecked", "rawtypes" })
		protected void doOnError(Throwable throwable) {
			this.listener.commandFailed(new CommandFailedEvent((RedisCommand) this.command, this.context, throwable));
		}

	}

}
