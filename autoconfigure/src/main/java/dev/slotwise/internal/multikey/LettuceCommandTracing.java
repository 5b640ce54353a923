package dev.slotwise.internal.multikey;

import io.lettuce.core.protocol.CommandWrapper;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.protocol.TracedCommand;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.tracing.TraceContext;
import io.lettuce.core.tracing.TraceContextProvider;
import io.lettuce.core.tracing.Tracing;
import org.jspecify.annotations.Nullable;

/**
 * Lets Lettuce's own tracing see the engine's commands as it sees its own: with tracing
 * on in the client's {@link ClientResources} (Spring Boot's
 * {@code LettuceObservationAutoConfiguration} sets Micrometer's when an
 * {@code ObservationRegistry} exists), each command is wrapped as Lettuce's
 * {@code RedisChannelHandler.dispatch} wraps every command it writes: in a
 * {@link TracedCommand} carrying the trace context current on the sending thread.
 * <p>
 * The engine writes its commands to the channel itself ({@link LettuceBatchWriter}), past
 * {@code dispatch}, and its {@link LettuceBatchCommand} is not a
 * {@code CompleteableCommand}; Lettuce's {@code CommandHandler} starts a span only for
 * commands that are (it finishes the span from their completion callback), so without the
 * wrapper none of them was observed. The wrapper is one of those and delegates everything
 * else to the engine's command; the span then carries Lettuce's own name and keys
 * ({@code lettuce}, {@code db.system}, {@code db.operation}, the peer address).
 * <p>
 * With tracing off (Lettuce's default, and Spring Boot's when there is no
 * {@code ObservationRegistry}), nothing is wrapped and nothing read: the fast path is as
 * before.
 */
final class LettuceCommandTracing {

	private static final LettuceCommandTracing OFF = new LettuceCommandTracing(null);

	private final @Nullable Tracing tracing;

	private LettuceCommandTracing(@Nullable Tracing tracing) {
		this.tracing = tracing;
	}

	/**
	 * Returns the tracing of a client's resources.
	 * @param resources the client's resources, or {@code null} when unknown
	 * @return the tracing, off unless the resources trace
	 */
	static LettuceCommandTracing of(@Nullable ClientResources resources) {
		Tracing tracing = (resources != null) ? resources.tracing() : null;
		return (tracing != null && tracing.isEnabled()) ? new LettuceCommandTracing(tracing) : OFF;
	}

	/**
	 * Whether commands are wrapped.
	 * @return {@code true} when the client traces its commands
	 */
	boolean isEnabled() {
		return this.tracing != null;
	}

	/**
	 * Reads the trace context the commands of a batch become children of: the observation
	 * current on the calling thread (the engine makes the batch's own observation current
	 * while it sends), as Lettuce reads it for its own commands on the thread that
	 * dispatches them.
	 * @return the context, or {@code null} for none (the commands' spans then start
	 * traces of their own, as Lettuce's do)
	 */
	@Nullable TraceContext currentContext() {
		Tracing tracing = this.tracing;
		return (tracing != null) ? tracing.initialTraceContextProvider().getTraceContext() : null;
	}

	/**
	 * Wraps a command for Lettuce's tracing, when it is on.
	 * @param command the command
	 * @param context the context from {@link #currentContext()}
	 * @return the command to write: a {@link TracedCommand} around it, or the command
	 * itself when tracing is off or it already carries a context
	 */
	RedisCommand<byte[], byte[], ?> wrap(RedisCommand<byte[], byte[], ?> command, @Nullable TraceContext context) {
		if (this.tracing == null || CommandWrapper.unwrap(command, TraceContextProvider.class) != null) {
			return command;
		}
		return new TracedCommand<>(command, context);
	}

}
