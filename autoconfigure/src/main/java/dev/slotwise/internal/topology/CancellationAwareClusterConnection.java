package dev.slotwise.internal.topology;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.function.Supplier;

import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.cluster.ClusterPushHandler;
import io.lettuce.core.cluster.StatefulRedisClusterConnectionImpl;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.json.JsonParser;
import io.lettuce.core.protocol.CompleteableCommand;
import io.lettuce.core.protocol.RedisCommand;

/**
 * Lettuce's cluster connection, except that a command whose caller gave up on it is never written afterwards.
 * <p>
 * Lettuce routes each command of a cluster connection inside a wrapper ({@code ClusterCommand}) that reports itself
 * done only when it completed itself, not when the caller's command inside it did. Spring Data's synchronous calls
 * wait through Lettuce's {@code awaitOrCancel}, which cancels the caller's command at the timeout; the wrapper's own
 * timeout timer ({@code CommandExpiryWriter}) listens to that same command and is cancelled with it. A wrapper that
 * was buffered on a node connection while its node was down (Lettuce buffers while it reconnects) therefore stays
 * "not done" and is written when the connection comes back: the node answers {@code MOVED} and the wrapper follows
 * it to the node that took over, applying a write the application saw fail, possibly over a newer acknowledged one
 * (issue #21, measured in the chaos soak). Here the wrapper is completed as soon as the caller's command is
 * cancelled, so Lettuce's endpoint drops it from its buffer and its command handler does not write it. A command
 * already on the wire is not recalled (nothing can), and replies to it are discarded as for any cancelled command.
 */
final class CancellationAwareClusterConnection<K, V> extends StatefulRedisClusterConnectionImpl<K, V> {

	CancellationAwareClusterConnection(RedisChannelWriter writer, ClusterPushHandler pushHandler, RedisCodec<K, V> codec,
			Duration timeout, Supplier<JsonParser> parser) {
		super(writer, pushHandler, codec, timeout, parser);
	}

	@Override
	public <T> RedisCommand<K, V, T> dispatch(RedisCommand<K, V, T> command) {
		RedisCommand<K, V, T> sent = super.dispatch(command);
		if (sent != command && command instanceof CompleteableCommand<?> caller) {
			caller.onComplete((value, failure) -> {
				if (command.isCancelled() && !sent.isDone()) {
					sent.completeExceptionally(new CancellationException(
							"Cancelled by its caller (timed out or abandoned) before it was written"));
				}
			});
		}
		return sent;
	}

}
