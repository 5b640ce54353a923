package dev.slotwise.connection;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import io.lettuce.core.KeyValue;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.reactive.RedisAdvancedClusterReactiveCommands;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.ResolvableType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;

/**
 * Routes the cross-slot multi-key calls of Spring Data Redis's reactive cluster
 * connections to a {@link ReactiveMultiKeyRouter}, through public API only: the provider
 * of reactive connections (created by the factory's protected
 * {@code doCreateConnectionProvider}) hands out Lettuce cluster connections whose
 * {@code reactive()} commands send {@code MGET}, {@code MSET}, {@code DEL},
 * {@code UNLINK} and {@code EXISTS} over keys of several slots to the router; every other
 * call, and every call whose keys share a slot, goes to Lettuce unchanged. Spring Data
 * Redis's reactive connection, its string and key commands, its exception translation and
 * its connection pool stay its own: it calls these commands exactly as it calls
 * Lettuce's.
 * <p>
 * Both decorations are {@link Proxy dynamic proxies} of Lettuce's public interfaces, so
 * that a method a later Lettuce adds to them reaches Lettuce's connection too.
 */
final class ReactiveRouting {

	/**
	 * The Lettuce members this decoration relies on, checked once; {@code null} when all
	 * exist.
	 */
	static final @Nullable String MISSING_MEMBER = missingMember();

	private ReactiveRouting() {
	}

	/**
	 * Tells whether a codec is the one Spring Data Redis's reactive connections use (keys
	 * and values as {@link ByteBuffer}): the factory creates one provider per codec and
	 * the imperative one uses {@code byte[]}. Read from the type arguments the codec's
	 * class declares for {@link RedisCodec}; a codec that declares none (a raw or generic
	 * class) is not routed.
	 * @param codec the codec
	 * @return whether it encodes {@link ByteBuffer} keys and values
	 */
	static boolean isByteBufferCodec(RedisCodec<?, ?> codec) {
		ResolvableType type = ResolvableType.forClass(RedisCodec.class, codec.getClass());
		return type.resolveGeneric(0) == ByteBuffer.class && type.resolveGeneric(1) == ByteBuffer.class;
	}

	/**
	 * Returns a provider whose cluster connections route cross-slot multi-key calls to
	 * the router and {@code SCAN} and {@code KEYS} to the key walks.
	 * @param provider Spring Data Redis's provider of reactive connections
	 * @param router runs cross-slot calls, or {@code null} to leave them to Lettuce
	 * @param keyspace runs {@code SCAN} and {@code KEYS}, or {@code null} to leave them
	 * to Lettuce
	 * @param nearCache answers reads of covered keys from memory, or {@code null} for
	 * none
	 * @return the provider to hand to Spring Data Redis
	 */
	static LettuceConnectionProvider provider(LettuceConnectionProvider provider,
			@Nullable ReactiveMultiKeyRouter router, @Nullable ReactiveKeyspace keyspace,
			@Nullable ReactiveNearCache nearCache) {
		return new RoutingProvider(provider, (commands) -> new CommandsHandler(commands, router, keyspace, nearCache));
	}

	private static @Nullable String missingMember() {
		try {
			StatefulRedisClusterConnection.class.getMethod("reactive");
			RedisAdvancedClusterReactiveCommands.class.getMethod("mget", Object[].class);
			RedisAdvancedClusterReactiveCommands.class.getMethod("mset", Map.class);
			RedisAdvancedClusterReactiveCommands.class.getMethod("del", Object[].class);
			RedisAdvancedClusterReactiveCommands.class.getMethod("unlink", Object[].class);
			RedisAdvancedClusterReactiveCommands.class.getMethod("exists", Object[].class);
			return null;
		}
		catch (NoSuchMethodException ex) {
			return "Lettuce's " + ex.getMessage();
		}
	}

	/**
	 * Spring Data Redis's provider, with its cluster connections decorated.
	 */
	private static final class RoutingProvider implements LettuceConnectionProvider, DisposableBean {

		private final LettuceConnectionProvider delegate;

		/** Routes the calls of a connection's reactive commands. */
		private final Function<Object, InvocationHandler> commands;

		RoutingProvider(LettuceConnectionProvider delegate, Function<Object, InvocationHandler> commands) {
			this.delegate = delegate;
			this.commands = commands;
		}

		@Override
		public <T extends StatefulConnection<?, ?>> CompletionStage<T> getConnectionAsync(Class<T> connectionType) {
			return this.delegate.getConnectionAsync(connectionType)
				.thenApply((connection) -> connectionType.cast(decorate(connection)));
		}

		@Override
		public void release(StatefulConnection<?, ?> connection) {
			this.delegate.release(connection);
		}

		@Override
		public CompletableFuture<Void> releaseAsync(StatefulConnection<?, ?> connection) {
			return this.delegate.releaseAsync(connection);
		}

		@Override
		public void destroy() throws Exception {
			if (this.delegate instanceof DisposableBean disposable) {
				disposable.destroy();
			}
		}

		private StatefulConnection<?, ?> decorate(StatefulConnection<?, ?> connection) {
			// Pub/sub connections carry no multi-key commands.
			if (!(connection instanceof StatefulRedisClusterConnection<?, ?> cluster)
					|| connection instanceof StatefulRedisPubSubConnection<?, ?>) {
				return connection;
			}
			return (StatefulConnection<?, ?>) Proxy.newProxyInstance(ReactiveRouting.class.getClassLoader(),
					new Class<?>[] { StatefulRedisClusterConnection.class },
					new ConnectionHandler(cluster, this.commands.apply(cluster.reactive())));
		}

	}

	/**
	 * A Lettuce cluster connection whose {@code reactive()} commands route; everything
	 * else is the connection's.
	 */
	private static final class ConnectionHandler implements InvocationHandler {

		private final StatefulRedisClusterConnection<?, ?> connection;

		private final Object commands;

		ConnectionHandler(StatefulRedisClusterConnection<?, ?> connection, InvocationHandler commands) {
			this.connection = connection;
			this.commands = Proxy.newProxyInstance(ReactiveRouting.class.getClassLoader(),
					new Class<?>[] { RedisAdvancedClusterReactiveCommands.class }, commands);
		}

		@Override
		public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
			if (method.getParameterCount() == 0) {
				switch (method.getName()) {
					case "reactive":
						return this.commands;
					case "hashCode":
						return System.identityHashCode(proxy);
					case "toString":
						return "Slotwise-routed " + this.connection;
					default:
				}
			}
			else if (method.getParameterCount() == 1 && method.getName().equals("equals")) {
				return proxy == args[0];
			}
			return delegate(this.connection, method, args);
		}

	}

	/**
	 * Lettuce's reactive cluster commands with cross-slot multi-key calls going to the
	 * router and {@code SCAN} and {@code KEYS} to the key walks.
	 */
	private static final class CommandsHandler implements InvocationHandler {

		private final Object commands;

		private final @Nullable ReactiveMultiKeyRouter router;

		private final @Nullable ReactiveKeyspace keyspace;

		private final @Nullable ReactiveNearCache nearCache;

		CommandsHandler(Object commands, @Nullable ReactiveMultiKeyRouter router, @Nullable ReactiveKeyspace keyspace,
				@Nullable ReactiveNearCache nearCache) {
			this.commands = commands;
			this.router = router;
			this.keyspace = keyspace;
			this.nearCache = nearCache;
		}

		@Override
		public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
			ReactiveNearCache nearCache = this.nearCache;
			if (nearCache != null && method.getDeclaringClass() != Object.class) {
				return ReactiveNearCacheCommands.invoke(nearCache, method, args, this::route);
			}
			return route(method, args);
		}

		private @Nullable Object route(Method method, @Nullable Object[] args) throws Throwable {
			ReactiveKeyspace keyspace = this.keyspace;
			if (keyspace != null) {
				Object walked = KeyWalks.invoke(keyspace, method, args);
				if (walked != null) {
					return walked;
				}
			}
			if (this.router != null && args != null && args.length == 1) {
				Object routed = switch (method.getName()) {
					case "mget", "mset" -> stringCommand(method.getName(), args[0]);
					case "del", "unlink", "exists" -> keyCommand(method.getName(), args[0]);
					default -> null;
				};
				if (routed != null) {
					return routed;
				}
			}
			return delegate(this.commands, method, args);
		}

		/**
		 * Runs a cross-slot string command on the router.
		 * @return the command's publisher, or {@code null} to leave the call to Lettuce
		 */
		private @Nullable Object stringCommand(String name, @Nullable Object argument) {
			ReactiveMultiKeyRouter router = router();
			if (name.equals("mget")) {
				List<ByteBuffer> keys = keys(argument);
				if (keys == null) {
					return null;
				}
				return router.mGet(keys).flatMapIterable((values) -> {
					List<KeyValue<ByteBuffer, ByteBuffer>> pairs = new ArrayList<>(values.size());
					for (int i = 0; i < values.size(); i++) {
						pairs.add(KeyValue.fromNullable(keys.get(i), values.get(i)));
					}
					return pairs;
				});
			}
			if (!(argument instanceof Map<?, ?> map) || map.isEmpty() || keys(map.keySet().toArray()) == null) {
				return null;
			}
			@SuppressWarnings("unchecked")
			Map<ByteBuffer, ByteBuffer> tuples = (Map<ByteBuffer, ByteBuffer>) map;
			return router.mSet(tuples).thenReturn("OK");
		}

		/**
		 * Runs a cross-slot key command on the router.
		 * @return the command's publisher, or {@code null} to leave the call to Lettuce
		 */
		private @Nullable Object keyCommand(String name, @Nullable Object argument) {
			List<ByteBuffer> keys = keys(argument);
			if (keys == null) {
				return null;
			}
			ReactiveMultiKeyRouter router = router();
			return switch (name) {
				case "del" -> router.remove(keys, false);
				case "unlink" -> router.remove(keys, true);
				default -> router.exists(keys);
			};
		}

		private ReactiveMultiKeyRouter router() {
			ReactiveMultiKeyRouter router = this.router;
			if (router == null) {
				throw new IllegalStateException("No reactive multi-key router");
			}
			return router;
		}

		/**
		 * Returns the keys of a varargs call when the router must run it (they are all
		 * buffers and span slots).
		 */
		private @Nullable List<ByteBuffer> keys(@Nullable Object argument) {
			if (!(argument instanceof Object[] array) || array.length < 2) {
				return null;
			}
			for (Object key : array) {
				if (!(key instanceof ByteBuffer)) {
					return null;
				}
			}
			@SuppressWarnings({ "unchecked", "rawtypes" })
			List<ByteBuffer> keys = (List) Arrays.asList(array);
			return router().routes(keys) ? keys : null;
		}

	}

	private static @Nullable Object delegate(Object target, Method method, @Nullable Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
