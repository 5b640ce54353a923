package dev.slotwise.internal.multikey;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import dev.slotwise.internal.multikey.NodeTransport.ErrorReply;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import io.netty.buffer.ByteBuf;
import org.jspecify.annotations.Nullable;

/**
 * One command of a node batch on a Lettuce node connection, lighter than Lettuce's own
 * {@code AsyncCommand}: no future, no {@link CommandArgs}, no per-command callback. It is
 * encoded once, on the thread that creates it (Lettuce's event loop only copies the
 * bytes), and, when its reply is decoded, puts the reply into its {@link Batch}'s slot;
 * the batch is the one future of the node batch, completed when its last command is
 * answered.
 * <p>
 * A command whose batch has ended (completed, failed, or cancelled because its call
 * ended) reports itself done, so Lettuce skips it when it is not yet written, and a reply
 * that still arrives for it is dropped.
 */
final class LettuceBatchCommand implements RedisCommand<byte[], byte[], Object> {

	private static final ByteArrayCodec CODEC = ByteArrayCodec.INSTANCE;

	private static final AtomicIntegerFieldUpdater<LettuceBatchCommand> STATE = AtomicIntegerFieldUpdater
		.newUpdater(LettuceBatchCommand.class, "state");

	private static final int PENDING = 0;

	private static final int DONE = 1;

	private static final int CANCELLED = 2;

	private final Batch batch;

	/**
	 * Where the reply goes in the batch, {@code -1} for an {@code ASKING}, whose reply is
	 * no request's.
	 */
	private final int index;

	private final CommandType type;

	private final byte[][] args;

	/**
	 * The command as the server reads it, encoded on the calling thread rather than on
	 * Lettuce's event loop.
	 */
	private final byte[] encoded;

	private final @Nullable LettuceBatchCommand asking;

	private CommandOutput<byte[], byte[], ?> output;

	/** For an {@code ASKING}: the server's error line when it refused it. */
	private volatile @Nullable String refusal;

	private volatile int state;

	private LettuceBatchCommand(Batch batch, int index, CommandType type, byte[][] args,
			CommandOutput<byte[], byte[], ?> output, @Nullable LettuceBatchCommand asking) {
		this.batch = batch;
		this.index = index;
		this.type = type;
		this.args = args;
		this.encoded = encode(type.getBytes(), args);
		this.output = output;
		this.asking = asking;
	}

	/**
	 * Creates the command that answers one request of a batch.
	 * @param batch the batch
	 * @param index the request's position in the batch
	 * @param command the command
	 * @param type Lettuce's name for it
	 * @param args its arguments, keys (and values) in order
	 * @param asking the {@code ASKING} written right before it, or {@code null}
	 * @return the command
	 */
	static LettuceBatchCommand request(Batch batch, int index, MultiKeyCommand command, CommandType type, byte[][] args,
			@Nullable LettuceBatchCommand asking) {
		CommandOutput<byte[], byte[], ?> output = switch (command.reply()) {
			case VALUES -> new ValuesOutput();
			case STATUS -> new StatusOutput<>(CODEC);
			case INTEGER -> new IntegerOutput<>(CODEC);
		};
		return new LettuceBatchCommand(batch, index, type, args, output, asking);
	}

	/**
	 * Creates an {@code ASKING} to write right before a request that follows an
	 * {@code ASK} redirect.
	 * @param batch the batch
	 * @return the command
	 */
	static LettuceBatchCommand asking(Batch batch) {
		return new LettuceBatchCommand(batch, -1, CommandType.ASKING, new byte[0][], new StatusOutput<>(CODEC), null);
	}

	@Override
	public void complete() {
		if (!STATE.compareAndSet(this, PENDING, DONE) || this.batch.isDone()) {
			return;
		}
		String error = this.output.getError();
		if (this.index < 0) {
			this.refusal = error;
			return;
		}
		// Replies on one connection arrive in order: an ASKING's reply was recorded
		// before this one came.
		String refused = (this.asking != null) ? this.asking.refusal : null;
		if (refused != null) {
			// ASKING refused (NOPERM for a user without it): the command then met only
			// the MOVED back to the migrating node, so the refusal is its reply, as over
			// Jedis.
			this.batch.reply(this.index, new ErrorReply(refused));
		}
		else if (error != null) {
			this.batch.reply(this.index, new ErrorReply(error));
		}
		else {
			this.batch.reply(this.index, this.output.get());
		}
	}

	@Override
	public boolean completeExceptionally(Throwable failure) {
		if (!STATE.compareAndSet(this, PENDING, DONE)) {
			return false;
		}
		if (failure instanceof RedisCommandExecutionException) {
			if (this.index < 0) {
				this.refusal = String.valueOf(failure.getMessage());
			}
			else {
				this.batch.reply(this.index, new ErrorReply(String.valueOf(failure.getMessage())));
			}
		}
		else {
			this.batch.completeExceptionally(failure);
		}
		return true;
	}

	/**
	 * Lettuce cancels the commands of a connection it resets or closes: that ends the
	 * batch with the reason Lettuce gave, so that the call fails naming the node at once
	 * instead of waiting for its deadline.
	 */
	@Override
	public void cancel() {
		if (STATE.compareAndSet(this, PENDING, CANCELLED)) {
			String reason = this.output.getError();
			this.batch.completeExceptionally(new RedisException(
					"Lettuce cancelled " + this.type + ((reason != null) ? ": " + reason : " (connection reset)")));
		}
	}

	@Override
	public boolean isCancelled() {
		return this.state == CANCELLED || this.batch.isCancelled();
	}

	@Override
	public boolean isDone() {
		return this.state != PENDING || this.batch.isDone();
	}

	@Override
	public CommandOutput<byte[], byte[], Object> getOutput() {
		@SuppressWarnings("unchecked")
		CommandOutput<byte[], byte[], Object> output = (CommandOutput<byte[], byte[], Object>) this.output;
		return output;
	}

	@Override
	public void setOutput(CommandOutput<byte[], byte[], Object> output) {
		this.output = output;
	}

	/**
	 * Builds Lettuce's view of the arguments; only diagnostics (tracing, debug logs) ask
	 * for it.
	 */
	@Override
	public CommandArgs<byte[], byte[]> getArgs() {
		CommandArgs<byte[], byte[]> args = new CommandArgs<>(CODEC);
		for (byte[] arg : this.args) {
			args.add(arg);
		}
		return args;
	}

	@Override
	public CommandType getType() {
		return this.type;
	}

	/**
	 * Writes the command's bytes, encoded when it was created: the event loop, which
	 * serves several nodes, only copies them.
	 */
	@Override
	public void encode(ByteBuf buf) {
		buf.writeBytes(this.encoded);
	}

	@Override
	public String toString() {
		return this.type + " (" + this.args.length + " arguments)";
	}

	/**
	 * Encodes a command as a RESP array of bulk strings, sized first so that nothing is
	 * copied twice.
	 */
	private static byte[] encode(byte[] name, byte[][] args) {
		int size = 1 + digits(args.length + 1) + 2 + bulkSize(name);
		for (byte[] arg : args) {
			size += bulkSize(arg);
		}
		byte[] out = new byte[size];
		int at = 0;
		out[at++] = '*';
		at = writeNumber(out, at, args.length + 1);
		at = writeBulk(out, at, name);
		for (byte[] arg : args) {
			at = writeBulk(out, at, arg);
		}
		return out;
	}

	private static int bulkSize(byte[] value) {
		return 1 + digits(value.length) + 2 + value.length + 2;
	}

	private static int writeBulk(byte[] out, int at, byte[] value) {
		out[at++] = '$';
		at = writeNumber(out, at, value.length);
		System.arraycopy(value, 0, out, at, value.length);
		at += value.length;
		out[at++] = '\r';
		out[at++] = '\n';
		return at;
	}

	private static int digits(int value) {
		int digits = 1;
		for (int rest = value; rest >= 10; rest /= 10) {
			digits++;
		}
		return digits;
	}

	/**
	 * Writes a non-negative number in decimal followed by CRLF.
	 */
	private static int writeNumber(byte[] out, int at, int value) {
		int end = at + digits(value);
		int rest = value;
		for (int i = end - 1; i >= at; i--) {
			out[i] = (byte) ('0' + rest % 10);
			rest /= 10;
		}
		out[end] = '\r';
		out[end + 1] = '\n';
		return end + 2;
	}

	/**
	 * The replies of one node batch, in request order: the batch's only future, completed
	 * by the last reply.
	 */
	static final class Batch extends CompletableFuture<List<Object>> {

		private final Object[] replies;

		private final AtomicInteger remaining;

		Batch(int size) {
			this.replies = new Object[size];
			this.remaining = new AtomicInteger(size);
		}

		/**
		 * Takes the reply of one request; the last one completes the batch.
		 * @param index the request's position
		 * @param reply the decoded reply or an {@link ErrorReply}
		 */
		void reply(int index, @Nullable Object reply) {
			this.replies[index] = reply;
			// The decrement publishes the array write to whichever thread completes the
			// batch.
			if (this.remaining.decrementAndGet() == 0) {
				complete(Arrays.asList(this.replies));
			}
		}

	}

	/**
	 * An {@code MGET} reply: its values in a presized array, no list grown element by
	 * element.
	 */
	static final class ValuesOutput extends CommandOutput<byte[], byte[], Object> {

		private byte @Nullable [][] values;

		private int count;

		ValuesOutput() {
			super(CODEC, null);
		}

		@Override
		public void multi(int count) {
			if (this.values == null) {
				this.values = new byte[count][];
			}
		}

		@Override
		public void set(@Nullable ByteBuffer bytes) {
			byte[][] values = this.values;
			if (values == null || this.count == values.length) {
				// Only a reply whose size was not announced (never for MGET) gets here.
				values = Arrays.copyOf((values != null) ? values : new byte[0][], this.count + 8);
				this.values = values;
			}
			values[this.count++] = (bytes != null) ? CODEC.decodeValue(bytes) : null;
		}

		@Override
		public Object get() {
			byte[][] values = this.values;
			if (values == null) {
				return Collections.emptyList();
			}
			return Arrays.asList((this.count == values.length) ? values : Arrays.copyOf(values, this.count));
		}

	}

}
