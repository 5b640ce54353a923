package dev.slotwise.connection;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.slotwise.internal.compat.FastPath;
import dev.slotwise.internal.health.FastPaths;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reactive cross-slot routing plugs in where Spring Data Redis creates the provider of
 * reactive connections ({@code doCreateConnectionProvider}). Should a Spring Data Redis
 * stop creating it there, the reactive connections stay plain Spring Data Redis's, one
 * WARN names the missing extension point, and the fast-path report says so. Nothing here
 * connects: the factory starts without opening a connection.
 */
@ExtendWith(OutputCaptureExtension.class)
class ReactiveRoutingFallbackTests {

	@Test
	void theReactiveCodecIsToldByTheTypesItDeclaresWithoutEncodingAnything() throws Exception {
		Object springDataReactiveCodec = Class
			.forName("org.springframework.data.redis.connection.lettuce.LettuceReactiveRedisConnection$ByteBufferCodec")
			.getEnumConstants()[0];
		assertThat(ReactiveRouting.isByteBufferCodec((RedisCodec<?, ?>) springDataReactiveCodec)).isTrue();
		assertThat(ReactiveRouting.isByteBufferCodec(ByteArrayCodec.INSTANCE)).isFalse();
		assertThat(ReactiveRouting.isByteBufferCodec(StringCodec.UTF8)).isFalse();
	}

	@Test
	void reactiveRoutingIsActiveWhenTheReactiveProviderIsCreatedThroughTheExtensionPoint(CapturedOutput output) {
		SlotwiseLettuceConnectionFactory factory = new SlotwiseLettuceConnectionFactory(cluster(),
				LettuceClientConfiguration.defaultConfiguration());
		factory.setReactiveMultiKeyRouter(new NoRouter());
		factory.afterPropertiesSet();
		try {
			assertThat(factory.isReactiveRoutingActive()).isTrue();
			assertThat(factory.getReactiveRoutingProblem()).isNull();
			assertThat(reactiveRouting(factory).active()).isTrue();
			assertThat(output).doesNotContain("Cross-slot reactive multi-key calls run as Spring Data Redis runs them");
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void withoutTheExtensionPointReactiveCallsStayWithSpringDataRedisAndOneWarningNamesIt(CapturedOutput output) {
		SlotwiseLettuceConnectionFactory factory = new SlotwiseLettuceConnectionFactory(cluster(),
				LettuceClientConfiguration.defaultConfiguration()) {

			@Override
			protected LettuceConnectionProvider doCreateConnectionProvider(AbstractRedisClient client,
					RedisCodec<?, ?> codec) {
				if (codec instanceof ByteArrayCodec) {
					return super.doCreateConnectionProvider(client, codec);
				}
				// A Spring Data Redis whose reactive provider no longer comes through
				// this method.
				return new UnusedProvider();
			}

		};
		factory.setReactiveMultiKeyRouter(new NoRouter());
		factory.afterPropertiesSet();
		try {
			assertThat(factory.isReactiveRoutingActive()).isFalse();
			assertThat(factory.getReactiveRoutingProblem()).contains("doCreateConnectionProvider");
			FastPath routing = reactiveRouting(factory);
			assertThat(routing.active()).isFalse();
			assertThat(routing.describe()).contains("doCreateConnectionProvider")
				.contains("reactive cross-slot calls run as Spring Data Redis and Lettuce run them");
			assertThat(output)
				.containsOnlyOnce("Cross-slot reactive multi-key calls run as Spring Data Redis runs them")
				.contains("doCreateConnectionProvider(AbstractRedisClient, RedisCodec)");
		}
		finally {
			factory.destroy();
		}
	}

	private static FastPath reactiveRouting(SlotwiseLettuceConnectionFactory factory) {
		return FastPaths.of(factory)
			.stream()
			.filter((fastPath) -> fastPath.name().equals("lettuce-reactive-routing"))
			.findFirst()
			.orElseThrow();
	}

	private static RedisClusterConfiguration cluster() {
		// Never connected to: starting a Lettuce factory opens no connection.
		return new RedisClusterConfiguration(List.of("127.0.0.1:1"));
	}

	private static final class UnusedProvider implements LettuceConnectionProvider {

		@Override
		public <T extends StatefulConnection<?, ?>> CompletionStage<T> getConnectionAsync(Class<T> connectionType) {
			return CompletableFuture.failedFuture(new IllegalStateException("not used by this test"));
		}

	}

	private static final class NoRouter implements ReactiveMultiKeyRouter {

		@Override
		public boolean routes(List<ByteBuffer> keys) {
			return false;
		}

		@Override
		public Mono<List<@Nullable ByteBuffer>> mGet(List<ByteBuffer> keys) {
			return Mono.error(new IllegalStateException("not routed"));
		}

		@Override
		public Mono<Void> mSet(Map<ByteBuffer, ByteBuffer> tuples) {
			return Mono.error(new IllegalStateException("not routed"));
		}

		@Override
		public Mono<Long> remove(List<ByteBuffer> keys, boolean unlink) {
			return Mono.error(new IllegalStateException("not routed"));
		}

		@Override
		public Mono<Long> exists(List<ByteBuffer> keys) {
			return Mono.error(new IllegalStateException("not routed"));
		}

	}

}
