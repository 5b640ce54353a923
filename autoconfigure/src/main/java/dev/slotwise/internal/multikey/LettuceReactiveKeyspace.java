package dev.slotwise.internal.multikey;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.lettuce.SlotwiseReactiveLettuceConnectionFactory.ReactiveKeyspace;
import org.springframework.data.redis.core.ScanOptions;

/**
 * Hands the reactive connections' {@code scan} and {@code keys} to the key walks over the factory's current native
 * connection (the one the reactive multi-key calls use), created again when the factory restarted.
 */
final class LettuceReactiveKeyspace implements ReactiveKeyspace {

	private final Supplier<StatefulRedisClusterConnection<byte[], byte[]>> connection;

	private final Function<StatefulRedisClusterConnection<byte[], byte[]>, ReactiveKeyspaceCommands> keyspaces;

	private volatile @Nullable Current current;

	LettuceReactiveKeyspace(Supplier<StatefulRedisClusterConnection<byte[], byte[]>> connection,
			Function<StatefulRedisClusterConnection<byte[], byte[]>, ReactiveKeyspaceCommands> keyspaces) {
		this.connection = connection;
		this.keyspaces = keyspaces;
	}

	@Override
	public Flux<ByteBuffer> scan(ScanOptions options) {
		return Flux.defer(() -> keyspace().scanReactive(options));
	}

	@Override
	public Mono<List<ByteBuffer>> keys(ByteBuffer pattern) {
		// Not deferred: the key walks decide at the call whether a cache clear is calling (from the caller's stack).
		return keyspace().keysReactive(pattern);
	}

	private ReactiveKeyspaceCommands keyspace() {
		StatefulRedisClusterConnection<byte[], byte[]> connection = this.connection.get();
		Current current = this.current;
		if (current == null || current.connection != connection) {
			current = new Current(connection, this.keyspaces.apply(connection));
			this.current = current;
		}
		return current.keyspace;
	}

	private record Current(StatefulRedisClusterConnection<byte[], byte[]> connection,
			ReactiveKeyspaceCommands keyspace) {
	}

}
