package dev.slotwise.internal.multikey;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CancellationException;

import dev.slotwise.internal.multikey.LettuceBatchCommand.Batch;
import dev.slotwise.internal.multikey.NodeTransport.ErrorReply;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The engine's own Lettuce command: encodes exactly as Lettuce's {@link Command} does,
 * puts decoded replies, error replies and {@code ASKING} refusals into its batch's slots,
 * completes the batch with the last reply, and reports itself done once its batch ended,
 * so Lettuce skips writing it.
 */
class LettuceBatchCommandTests {

	@Test
	void encodesTheSameBytesAsLettucesOwnCommand() {
		byte[][] args = { bytes("k1"), bytes(""), bytes("x".repeat(1234)), new byte[] { 0, '\r', '\n', (byte) 0xff } };
		for (MultiKeyCommand command : MultiKeyCommand.values()) {
			CommandType type = CommandType.valueOf(command.name());
			CommandArgs<byte[], byte[]> lettuceArgs = new CommandArgs<>(ByteArrayCodec.INSTANCE);
			for (byte[] arg : args) {
				lettuceArgs.addKey(arg);
			}
			ByteBuf expected = Unpooled.buffer();
			new Command<>(type, null, lettuceArgs).encode(expected);
			ByteBuf actual = Unpooled.buffer(1);
			LettuceBatchCommand.request(new Batch(1), 0, command, type, args, null).encode(actual);
			assertThat(ByteBufUtil.getBytes(actual)).as(command.name()).isEqualTo(ByteBufUtil.getBytes(expected));
		}
	}

	@Test
	void encodesAnAskingAsLettuceDoes() {
		ByteBuf expected = Unpooled.buffer();
		new Command<>(CommandType.ASKING, null).encode(expected);
		ByteBuf actual = Unpooled.buffer();
		LettuceBatchCommand.asking(new Batch(1)).encode(actual);
		assertThat(ByteBufUtil.getBytes(actual)).isEqualTo(ByteBufUtil.getBytes(expected));
	}

	@Test
	void theLastReplyCompletesTheBatchWithRepliesInRequestOrder() {
		Batch batch = new Batch(3);
		LettuceBatchCommand mget = request(batch, 0, MultiKeyCommand.MGET);
		LettuceBatchCommand del = request(batch, 1, MultiKeyCommand.DEL);
		LettuceBatchCommand mset = request(batch, 2, MultiKeyCommand.MSET);
		mset.getOutput().set(ByteBuffer.wrap(bytes("OK")));
		mset.complete();
		del.getOutput().set(2L);
		del.complete();
		assertThat(batch).isNotDone();
		mget.getOutput().multi(3);
		mget.getOutput().set(ByteBuffer.wrap(bytes("a")));
		mget.getOutput().set((ByteBuffer) null);
		mget.getOutput().set(ByteBuffer.wrap(bytes("c")));
		mget.complete();
		List<Object> replies = batch.join();
		assertThat((List<?>) replies.get(0)).satisfiesExactly((a) -> assertThat((byte[]) a).isEqualTo(bytes("a")),
				(b) -> assertThat(b).isNull(), (c) -> assertThat((byte[]) c).isEqualTo(bytes("c")));
		assertThat(replies.subList(1, 3)).containsExactly(2L, "OK");
	}

	@Test
	void anErrorReplyBecomesTheRequestsErrorReply() {
		Batch batch = new Batch(2);
		LettuceBatchCommand moved = request(batch, 0, MultiKeyCommand.MGET);
		moved.getOutput().setError("MOVED 3999 127.0.0.1:7001");
		moved.complete();
		request(batch, 1, MultiKeyCommand.EXISTS)
			.completeExceptionally(new RedisCommandExecutionException("OOM command not allowed"));
		assertThat(batch.join()).containsExactly(new ErrorReply("MOVED 3999 127.0.0.1:7001"),
				new ErrorReply("OOM command not allowed"));
	}

	@Test
	void aRefusedAskingIsTheReplyOfTheCommandItPrecedes() {
		Batch batch = new Batch(1);
		LettuceBatchCommand asking = LettuceBatchCommand.asking(batch);
		LettuceBatchCommand command = LettuceBatchCommand.request(batch, 0, MultiKeyCommand.MGET, CommandType.MGET,
				new byte[][] { bytes("k") }, asking);
		asking.getOutput().setError("NOPERM this user has no permissions to run the 'asking' command");
		asking.complete();
		command.getOutput().setError("MOVED 1 127.0.0.1:7000");
		command.complete();
		assertThat(batch.join())
			.containsExactly(new ErrorReply("NOPERM this user has no permissions to run the 'asking' command"));
	}

	@Test
	void anAcceptedAskingLeavesTheCommandsOwnReply() {
		Batch batch = new Batch(1);
		LettuceBatchCommand asking = LettuceBatchCommand.asking(batch);
		LettuceBatchCommand command = LettuceBatchCommand.request(batch, 0, MultiKeyCommand.DEL, CommandType.DEL,
				new byte[][] { bytes("k") }, asking);
		asking.getOutput().set(ByteBuffer.wrap(bytes("OK")));
		asking.complete();
		command.getOutput().set(1L);
		command.complete();
		assertThat(batch.join()).containsExactly(1L);
	}

	@Test
	void aConnectionFailureFailsTheBatch() {
		Batch batch = new Batch(2);
		request(batch, 0, MultiKeyCommand.MGET).completeExceptionally(new RedisException("Connection closed"));
		assertThatExceptionOfType(Exception.class).isThrownBy(batch::join)
			.havingRootCause()
			.withMessage("Connection closed");
	}

	@Test
	void lettuceCancellingACommandFailsTheBatchWithItsReason() {
		Batch batch = new Batch(1);
		LettuceBatchCommand command = request(batch, 0, MultiKeyCommand.MGET);
		command.getOutput().setError("Connection reset");
		command.cancel();
		assertThat(command.isCancelled()).isTrue();
		assertThatExceptionOfType(Exception.class).isThrownBy(batch::join)
			.havingRootCause()
			.isInstanceOf(RedisException.class)
			.withMessageContaining("Connection reset");
	}

	@Test
	void commandsOfAnEndedBatchAreDoneAndDropLateReplies() {
		Batch batch = new Batch(2);
		LettuceBatchCommand first = request(batch, 0, MultiKeyCommand.DEL);
		LettuceBatchCommand second = request(batch, 1, MultiKeyCommand.DEL);
		assertThat(first.isDone()).isFalse();
		batch.cancel(true);
		// Lettuce does not write a command that is done, and drops the reply of one
		// already written.
		assertThat(first.isDone()).isTrue();
		assertThat(second.isCancelled()).isTrue();
		first.getOutput().set(1L);
		first.complete();
		assertThatExceptionOfType(CancellationException.class).isThrownBy(batch::join);
	}

	@Test
	void aCommandCompletesOnce() {
		Batch batch = new Batch(2);
		LettuceBatchCommand command = request(batch, 0, MultiKeyCommand.EXISTS);
		command.getOutput().set(1L);
		command.complete();
		assertThat(command.completeExceptionally(new RedisException("late"))).isFalse();
		command.complete();
		request(batch, 1, MultiKeyCommand.EXISTS).completeExceptionally(new RedisCommandExecutionException("ERR x"));
		assertThat(batch.join()).containsExactly(1L, new ErrorReply("ERR x"));
	}

	@Test
	void argumentsAreShownToLettucesDiagnostics() {
		LettuceBatchCommand command = request(new Batch(1), 0, MultiKeyCommand.MGET);
		assertThat(command.getArgs().count()).isEqualTo(2);
		assertThat(command.getType()).isEqualTo(CommandType.MGET);
	}

	private static LettuceBatchCommand request(Batch batch, int index, MultiKeyCommand command) {
		return LettuceBatchCommand.request(batch, index, command, CommandType.valueOf(command.name()),
				new byte[][] { bytes("k" + index), bytes("v" + index) }, null);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
