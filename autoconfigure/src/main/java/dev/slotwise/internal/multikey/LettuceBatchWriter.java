package dev.slotwise.internal.multikey;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.CommandExpiryWriter;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.lettuce.core.protocol.RedisCommand;
import io.netty.channel.Channel;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Hands a node batch to Lettuce's event loop as one message: one task on the loop, one pass through the channel
 * pipeline, one buffer the batch is encoded into, one socket write.
 * <p>
 * Lettuce's own {@code write(Collection)} writes command by command: called from an application thread, each command
 * becomes a Netty write task, a pass through the pipeline, a buffer, a promise and a listener; for a batch of 1,000
 * slots that was most of the event loop's time (profiled) and its tasks cost the caller as much. Lettuce's
 * {@code CommandHandler} takes a {@link List} of commands as one message itself (it puts each on its reply stack in
 * order and its encoder writes them into one buffer), but the endpoint keeps its channel in a protected field. That
 * field is read here; where it cannot be (a Lettuce without it), where the channel is not active (reconnecting,
 * closed), or for a connection that is not a plain endpoint, the batch goes through the endpoint as before.
 * <p>
 * What the direct path leaves out: the commands do not count towards Lettuce's {@code requestQueueSize} (off unless
 * configured), and a batch written while a reconnected channel replays its buffered commands may reach the server
 * before them; a command of the engine never depends on the order of another caller's commands.
 */
final class LettuceBatchWriter {

	private static final Log logger = LogFactory.getLog(LettuceBatchWriter.class);

	private static final @Nullable VarHandle CHANNEL = channelField();

	private LettuceBatchWriter() {
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
		if (!(node instanceof RedisChannelHandler<?, ?> handler)) {
			node.dispatch(batch);
			return;
		}
		RedisChannelWriter writer = handler.getChannelWriter();
		if (writer instanceof CommandExpiryWriter expiry) {
			writer = expiry.getDelegate();
		}
		Channel channel = activeChannel(writer);
		if (channel == null) {
			writer.write(batch);
			return;
		}
		channel.writeAndFlush(batch).addListener((written) -> {
			if (!written.isSuccess()) {
				// Not handed to Lettuce's handler (the channel closed on the way): nothing will answer these.
				for (RedisCommand<byte[], byte[], ?> command : batch) {
					command.completeExceptionally(written.cause());
				}
			}
		});
	}

	private static @Nullable Channel activeChannel(RedisChannelWriter writer) {
		if (CHANNEL == null || !(writer instanceof DefaultEndpoint endpoint)) {
			return null;
		}
		Channel channel = (Channel) CHANNEL.getVolatile(endpoint);
		return (channel != null && channel.isActive()) ? channel : null;
	}

	private static @Nullable VarHandle channelField() {
		try {
			return MethodHandles.privateLookupIn(DefaultEndpoint.class, MethodHandles.lookup())
				.findVarHandle(DefaultEndpoint.class, "channel", Channel.class);
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			logger.warn("Cross-slot batches over Lettuce are written command by command: Lettuce's DefaultEndpoint "
					+ "no longer has the channel field they are written to as one message (" + ex + ")");
			return null;
		}
	}

}
