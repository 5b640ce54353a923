package org.springframework.data.redis.connection.lettuce;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.RedisCodec;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.ReactiveRedisConnection.BooleanResponse;
import org.springframework.data.redis.connection.ReactiveRedisConnection.MultiValueResponse;
import org.springframework.data.redis.connection.ReactiveRedisConnection.NumericResponse;
import org.springframework.data.redis.connection.ReactiveStringCommands.MSetCommand;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.util.Assert;

/**
 * The one place where Slotwise reaches into Spring Data Redis's Lettuce package: its reactive cluster connection and
 * command classes are package-private, and {@link LettuceConnectionFactory#getReactiveClusterConnection()} returns
 * that package-private type, so a subclass that routes cross-slot reactive {@code mGet}, {@code mSet}, {@code del},
 * {@code unlink} and {@code exists} to Slotwise's engine can only be created from here. With connection sharing off,
 * the reactive connections use dedicated connections as Spring Data Redis's do, and the router runs its calls over a
 * connection of its own.
 * <p>
 * Without a {@link MultiKeyRouter} everything is exactly Spring Data Redis's.
 */
public abstract class SlotwiseReactiveLettuceConnectionFactory extends LettuceConnectionFactory {

	private volatile @Nullable MultiKeyRouter reactiveMultiKeyRouter;

	private volatile @Nullable LettuceConnectionProvider reactiveProvider;

	// SLOTWISE-KEYSPACE (issue #20): the reactive scan/keys routing, kept apart for the move to dev.slotwise.
	private volatile @Nullable ReactiveKeyspace reactiveKeyspace;

	/**
	 * Creates a factory for a cluster.
	 * @param clusterConfiguration the cluster nodes and redirect limit
	 * @param clientConfiguration the client settings
	 */
	protected SlotwiseReactiveLettuceConnectionFactory(RedisClusterConfiguration clusterConfiguration,
			LettuceClientConfiguration clientConfiguration) {
		super(clusterConfiguration, clientConfiguration);
	}

	/**
	 * Sets what runs cross-slot reactive multi-key calls; {@code null} leaves them to Spring Data Redis.
	 * @param router the router
	 */
	public void setReactiveMultiKeyRouter(@Nullable MultiKeyRouter router) {
		this.reactiveMultiKeyRouter = router;
	}

	/**
	 * Sets what runs the reactive connections' {@code scan(ScanOptions)} and {@code keys(pattern)} across every
	 * master; {@code null} leaves them to Spring Data Redis. Takes effect with a {@link MultiKeyRouter} only.
	 * @param keyspace the key walks
	 */
	public void setReactiveKeyspace(@Nullable ReactiveKeyspace keyspace) {
		this.reactiveKeyspace = keyspace;
	}

	@Override
	LettuceConnectionProvider createConnectionProvider(AbstractRedisClient client, RedisCodec<?, ?> codec) {
		LettuceConnectionProvider provider = super.createConnectionProvider(client, codec);
		// Spring Data Redis keeps the reactive connections' provider private; it creates it here (pooling when the
		// client configuration pools), once per start, and stays the one that closes it. Its exception-translating
		// wrapper is private too; the reactive connection translates connection failures itself.
		if (codec == LettuceReactiveRedisConnection.CODEC) {
			this.reactiveProvider = provider;
		}
		return provider;
	}

	@Override
	public LettuceReactiveRedisClusterConnection getReactiveClusterConnection() {
		MultiKeyRouter router = this.reactiveMultiKeyRouter;
		LettuceConnectionProvider provider = this.reactiveProvider;
		if (router == null || provider == null || !(getNativeClient() instanceof RedisClusterClient client)) {
			return super.getReactiveClusterConnection();
		}
		if (!getShareNativeConnection()) {
			return new RoutingConnection(provider, client, router).withKeyspace(this.reactiveKeyspace);
		}
		StatefulConnection<ByteBuffer, ByteBuffer> shared = getSharedReactiveConnection();
		if (shared == null) {
			return super.getReactiveClusterConnection();
		}
		return new RoutingConnection(shared, provider, client, router).withKeyspace(this.reactiveKeyspace);
	}

	/**
	 * Runs cross-slot multi-key calls without blocking: each returned {@link Mono} completes from I/O callbacks,
	 * and cancelling it cancels the call's node batches.
	 */
	public interface MultiKeyRouter {

		/**
		 * Returns whether the keys span slots, so that the engine (not Spring Data Redis) must run the call.
		 * @param keys the keys, not empty
		 * @return whether they span slots
		 */
		boolean routes(List<ByteBuffer> keys);

		/**
		 * Reads keys that span slots.
		 * @param keys the keys
		 * @return the values in the keys' order, {@code null} for missing keys
		 */
		Mono<List<@Nullable ByteBuffer>> mGet(List<ByteBuffer> keys);

		/**
		 * Writes keys that span slots (atomic per slot only).
		 * @param tuples the keys and values
		 * @return completes when every slot acknowledged
		 */
		Mono<Void> mSet(Map<ByteBuffer, ByteBuffer> tuples);

		/**
		 * Removes keys that span slots.
		 * @param keys the keys
		 * @param unlink whether to {@code UNLINK} rather than {@code DEL}
		 * @return the number of keys removed
		 */
		Mono<Long> remove(List<ByteBuffer> keys, boolean unlink);

		/**
		 * Counts existing keys that span slots, each repetition counted.
		 * @param keys the keys
		 * @return the count
		 */
		Mono<Long> exists(List<ByteBuffer> keys);

	}

	/**
	 * Runs the reactive {@code scan} and {@code keys} across every master (SLOTWISE-KEYSPACE, issue #20).
	 */
	public interface ReactiveKeyspace {

		/**
		 * Scans every master, honouring back-pressure.
		 * @param options match, count and type
		 * @return the keys, each at least once
		 */
		Flux<ByteBuffer> scan(ScanOptions options);

		/**
		 * Returns the keys matching a pattern on every master.
		 * @param pattern the pattern
		 * @return the keys
		 */
		Mono<List<ByteBuffer>> keys(ByteBuffer pattern);

	}

	/**
	 * Spring Data Redis's reactive cluster connection with the cross-slot multi-key calls going to the router.
	 */
	static final class RoutingConnection extends LettuceReactiveRedisClusterConnection {

		private final MultiKeyRouter router;

		private @Nullable ReactiveKeyspace keyspace;

		RoutingConnection withKeyspace(@Nullable ReactiveKeyspace keyspace) {
			this.keyspace = keyspace;
			return this;
		}

		RoutingConnection(StatefulConnection<ByteBuffer, ByteBuffer> shared, LettuceConnectionProvider provider,
				RedisClusterClient client, MultiKeyRouter router) {
			super(shared, provider, client);
			this.router = router;
		}

		/**
		 * A connection whose commands other than the routed ones go over a dedicated connection, when sharing is off.
		 */
		RoutingConnection(LettuceConnectionProvider provider, RedisClusterClient client, MultiKeyRouter router) {
			super(provider, client);
			this.router = router;
		}

		@Override
		public LettuceReactiveClusterStringCommands stringCommands() {
			MultiKeyRouter router = this.router;
			return new LettuceReactiveClusterStringCommands(this) {

				@Override
				public Flux<MultiValueResponse<List<ByteBuffer>, ByteBuffer>> mGet(
						Publisher<List<ByteBuffer>> keyCollections) {
					return Flux.from(keyCollections).concatMap((keys) -> {
						Assert.notNull(keys, "Keys must not be null");
						if (keys.isEmpty() || !router.routes(keys)) {
							return super.mGet(Mono.just(keys));
						}
						return router.mGet(keys).map((values) -> new MultiValueResponse<>(keys, values));
					});
				}

				@Override
				public Flux<BooleanResponse<MSetCommand>> mSet(Publisher<MSetCommand> commands) {
					return Flux.from(commands).concatMap((command) -> {
						Map<ByteBuffer, ByteBuffer> tuples = command.getKeyValuePairs();
						if (tuples.isEmpty() || !router.routes(List.copyOf(tuples.keySet()))) {
							return super.mSet(Mono.just(command));
						}
						return router.mSet(tuples).thenReturn(new BooleanResponse<>(command, Boolean.TRUE));
					});
				}

			};
		}

		@Override
		public LettuceReactiveClusterKeyCommands keyCommands() {
			MultiKeyRouter router = this.router;
			ReactiveKeyspace keyspace = this.keyspace;
			return new LettuceReactiveClusterKeyCommands(this) {

				// SLOTWISE-KEYSPACE (issue #20): scan and keys across every master.
				@Override
				public Flux<ByteBuffer> scan(ScanOptions options) {
					if (keyspace == null) {
						return super.scan(options);
					}
					Assert.notNull(options, "ScanOptions must not be null");
					return keyspace.scan(options);
				}

				@Override
				public Mono<List<ByteBuffer>> keys(ByteBuffer pattern) {
					if (keyspace == null) {
						return super.keys(pattern);
					}
					Assert.notNull(pattern, "Pattern must not be null");
					return keyspace.keys(pattern);
				}

				@Override
				public Flux<MultiValueResponse<ByteBuffer, ByteBuffer>> keys(Publisher<ByteBuffer> patterns) {
					if (keyspace == null) {
						return super.keys(patterns);
					}
					return Flux.from(patterns).concatMap((pattern) -> keyspace.keys(pattern)
						.map((keys) -> new MultiValueResponse<>(pattern, keys)));
				}

				@Override
				public Flux<NumericResponse<List<ByteBuffer>, Long>> mDel(Publisher<List<ByteBuffer>> keysCollection) {
					return Flux.from(keysCollection).concatMap((keys) -> {
						if (keys == null || keys.isEmpty() || !router.routes(keys)) {
							return super.mDel(Mono.justOrEmpty(keys));
						}
						return router.remove(keys, false).map((removed) -> new NumericResponse<>(keys, removed));
					});
				}

				@Override
				public Flux<NumericResponse<List<ByteBuffer>, Long>> mUnlink(
						Publisher<List<ByteBuffer>> keysCollection) {
					return Flux.from(keysCollection).concatMap((keys) -> {
						if (keys == null || keys.isEmpty() || !router.routes(keys)) {
							return super.mUnlink(Mono.justOrEmpty(keys));
						}
						return router.remove(keys, true).map((removed) -> new NumericResponse<>(keys, removed));
					});
				}

				@Override
				public Mono<Long> exists(List<ByteBuffer> keys) {
					if (keys == null || keys.isEmpty() || !router.routes(keys)) {
						return super.exists(keys);
					}
					return router.exists(keys);
				}

			};
		}

	}

}
