package dev.slotwise.internal.compat;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.cluster.ClusterPushHandler;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.StatefulRedisClusterConnectionImpl;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.CommandWrapper;
import io.lettuce.core.protocol.ConnectionFacade;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.tracing.Tracing;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * {@link LettuceInternals#clusterConnection} with a writer that wraps each command the
 * way Lettuce's cluster writer does (a wrapper done only when it completed itself).
 */
class CancellationAwareClusterConnectionTests {

	private final WrappingWriter writer = new WrappingWriter();

	private final StatefulRedisClusterConnectionImpl<String, String> connection = LettuceInternals.clusterConnection(
			this.writer, mock(ClusterPushHandler.class), StringCodec.UTF8, Duration.ofSeconds(1),
			ClientOptions.DEFAULT_JSON_PARSER);

	@Test
	void theFactoryMethodLettuceDocumentsForSubclassesAndItsWrapperExist() {
		assertThat(LettuceInternals.cancelledStayUnwritten(null).problem()).isNull();
		assertThat(LettuceInternals.cancelledStayUnwritten(RedisClusterClient.create("redis://127.0.0.1:1")).problem())
			.contains("Slotwise's topology (slotwise.topology) is off");
	}

	@Test
	void aCommandItsCallerCancelledIsDoneInsideItsWrapper() {
		AsyncCommand<String, String, String> command = set();
		this.connection.dispatch(command);
		assertThat(this.writer.wrapper.isDone()).isFalse();
		command.cancel(true);
		assertThat(this.writer.wrapper.isDone()).isTrue();
		assertThat(this.writer.wrapper.failure).isInstanceOf(CancellationException.class);
	}

	@Test
	void aCommandCancelledBeforeItWasWrittenIsDoneAtOnce() {
		AsyncCommand<String, String, String> command = set();
		command.cancel(true);
		this.connection.dispatch(command);
		assertThat(this.writer.wrapper.isDone()).isTrue();
	}

	@Test
	void aCommandAnsweredNormallyIsLeftToLettuce() {
		AsyncCommand<String, String, String> command = set();
		this.connection.dispatch(command);
		command.getOutput().set(java.nio.ByteBuffer.wrap("OK".getBytes()));
		this.writer.wrapper.complete();
		assertThat(command.join()).isEqualTo("OK");
		assertThat(this.writer.wrapper.failure).isNull();
	}

	private static AsyncCommand<String, String, String> set() {
		return new AsyncCommand<>(new Command<>(CommandType.SET, new StatusOutput<>(StringCodec.UTF8)));
	}

	/**
	 * Like Lettuce's package-private {@code ClusterCommand}: done only when it completed
	 * itself.
	 */
	static final class OwnFlagWrapper<K, V, T> extends CommandWrapper<K, V, T> {

		private volatile boolean completed;

		private volatile Throwable failure;

		OwnFlagWrapper(RedisCommand<K, V, T> command) {
			super(command);
		}

		@Override
		public void complete() {
			super.complete();
			this.completed = true;
		}

		@Override
		public boolean completeExceptionally(Throwable ex) {
			this.completed = true;
			this.failure = ex;
			return super.completeExceptionally(ex);
		}

		@Override
		public boolean isDone() {
			return this.completed;
		}

	}

	static final class WrappingWriter implements RedisChannelWriter {

		OwnFlagWrapper<?, ?, ?> wrapper;

		private final ClientResources resources = mock(ClientResources.class);

		WrappingWriter() {
			given(this.resources.tracing()).willReturn(Tracing.disabled());
		}

		@Override
		public <K, V, T> RedisCommand<K, V, T> write(RedisCommand<K, V, T> command) {
			OwnFlagWrapper<K, V, T> wrapped = new OwnFlagWrapper<>(command);
			this.wrapper = wrapped;
			return wrapped;
		}

		@Override
		public <K, V> Collection<RedisCommand<K, V, ?>> write(Collection<? extends RedisCommand<K, V, ?>> commands) {
			return List.copyOf(commands);
		}

		@Override
		public void close() {
		}

		@Override
		public CompletableFuture<Void> closeAsync() {
			return CompletableFuture.completedFuture(null);
		}

		@Override
		public void setConnectionFacade(ConnectionFacade connection) {
		}

		@Override
		public void setAutoFlushCommands(boolean autoFlush) {
		}

		@Override
		public void flushCommands() {
		}

		@Override
		public ClientResources getClientResources() {
			return this.resources;
		}

	}

}
