package dev.slotwise.connection;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanStream;
import io.lettuce.core.cluster.api.reactive.RedisAdvancedClusterReactiveCommands;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.DataType;
import org.springframework.data.redis.core.KeyScanOptions;
import org.springframework.data.redis.core.ScanOptions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link KeyWalks}: scan arguments read back, and Lettuce's {@link ScanStream} driven
 * page by page over a walk.
 */
class KeyWalksTests {

	@Test
	void readsMatchCountAndTypeBackFromScanArguments() {
		ScanOptions options = KeyWalks.options(KeyScanArgs.Builder.type("hash").match("a:*").limit(42));
		assertThat(options).isInstanceOf(KeyScanOptions.class);
		assertThat(options.getPattern()).isEqualTo("a:*");
		assertThat(options.getCount()).isEqualTo(42);
		assertThat(((KeyScanOptions) options).getType()).isEqualTo(DataType.HASH.code());
		ScanOptions none = KeyWalks.options(new ScanArgs());
		assertThat(none.getPattern()).isNull();
		assertThat(none.getCount()).isNull();
	}

	@Test
	void scanStreamReadsTheWalkOnlyAsItsConsumerAsks() {
		AtomicLong requested = new AtomicLong();
		AtomicBoolean cancelled = new AtomicBoolean();
		Flux<ByteBuffer> walk = Flux.range(0, 10_000)
			.map((i) -> ByteBuffer.wrap(("k" + i).getBytes(StandardCharsets.UTF_8)))
			.doOnRequest(requested::addAndGet)
			.doOnCancel(() -> cancelled.set(true));
		RedisAdvancedClusterReactiveCommands<ByteBuffer, ByteBuffer> commands = commands(walk);
		List<ByteBuffer> received = new ArrayList<>();
		BaseSubscriber<ByteBuffer> consumer = new BaseSubscriber<>() {

			@Override
			protected void hookOnSubscribe(Subscription subscription) {
				subscription.request(10);
			}

			@Override
			protected void hookOnNext(ByteBuffer key) {
				received.add(key);
			}

		};
		ScanStream.scan(commands, ScanArgs.Builder.limit(50)).subscribe(consumer);
		assertThat(received).hasSize(10);
		consumer.dispose();
		// ScanStream asks for up to 256 pages ahead; the walk was read for the page in
		// use and the next one only.
		assertThat(requested.get()).isLessThanOrEqualTo(100);
		assertThat(cancelled).isTrue();
		List<ByteBuffer> all = ScanStream.scan(commands(walk), ScanArgs.Builder.limit(64)).collectList().block();
		assertThat(all).hasSize(10_000);
		assertThat(new String(all.get(9_999).array(), StandardCharsets.UTF_8)).isEqualTo("k9999");
	}

	@SuppressWarnings("unchecked")
	private static RedisAdvancedClusterReactiveCommands<ByteBuffer, ByteBuffer> commands(Flux<ByteBuffer> walk) {
		ReactiveKeyspace keyspace = new ReactiveKeyspace() {

			@Override
			public Flux<ByteBuffer> scan(ScanOptions options) {
				return walk;
			}

			@Override
			public Mono<List<ByteBuffer>> keys(ByteBuffer pattern) {
				return Mono.just(new ArrayList<>());
			}

		};
		InvocationHandler handler = (Object proxy, Method method, Object[] args) -> {
			Object walked = KeyWalks.invoke(keyspace, method, args);
			if (walked == null) {
				throw new AssertionError("Not answered from the walk: " + method);
			}
			return walked;
		};
		return (RedisAdvancedClusterReactiveCommands<ByteBuffer, ByteBuffer>) Proxy.newProxyInstance(
				KeyWalksTests.class.getClassLoader(), new Class<?>[] { RedisAdvancedClusterReactiveCommands.class },
				handler);
	}

}
