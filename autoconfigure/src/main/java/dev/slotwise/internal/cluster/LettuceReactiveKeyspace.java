package dev.slotwise.internal.cluster;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.slotwise.connection.ReactiveKeyspace;
import dev.slotwise.internal.keyspace.ReactiveKeyspaceCommands;
import dev.slotwise.internal.multikey.EngineHolder;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.core.ScanOptions;

/**
 * Hands the reactive connections' {@code scan} and {@code keys} to the key walks over the
 * factory's current native connection (the one the reactive multi-key calls use), created
 * again when the factory restarted.
 */
final class LettuceReactiveKeyspace implements ReactiveKeyspace {

	private final Supplier<StatefulRedisClusterConnection<byte[], byte[]>> connection;

	private final EngineHolder<StatefulRedisClusterConnection<byte[], byte[]>, ReactiveKeyspaceCommands> keyspace;

	/**
	 * @param connection supplies the native cluster connection the walks run over
	 * @param keyspaces creates the key walks over a connection
	 */
	LettuceReactiveKeyspace(Supplier<StatefulRedisClusterConnection<byte[], byte[]>> connection,
			Function<StatefulRedisClusterConnection<byte[], byte[]>, ReactiveKeyspaceCommands> keyspaces) {
		this.connection = connection;
		this.keyspace = new EngineHolder<>(keyspaces);
	}

	@Override
	public Flux<ByteBuffer> scan(ScanOptions options) {
		// Not deferred: the key walks tell a cache clear's scan (for the meters) from the
		// caller's stack.
		return keyspace().scanReactive(options);
	}

	@Override
	public Mono<List<ByteBuffer>> keys(ByteBuffer pattern) {
		// Not deferred: the key walks decide at the call whether a cache clear is calling
		// (from the caller's stack).
		return keyspace().keysReactive(pattern);
	}

	private ReactiveKeyspaceCommands keyspace() {
		return this.keyspace.get(this.connection.get());
	}

}
