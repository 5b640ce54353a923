package dev.slotwise.internal.cluster;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.slotwise.internal.keyspace.KeyspaceCommands;
import dev.slotwise.internal.keyspace.KeyspaceSupport;
import dev.slotwise.internal.keyspace.ScanObserver;
import dev.slotwise.internal.keyspace.ScanSettings;
import dev.slotwise.internal.multikey.EngineHolder;
import dev.slotwise.multikey.MultiKeyReadFrom;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;

import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.util.Assert;

/**
 * Cluster-wide {@code scan(ScanOptions)} and {@code keys(byte[])}, one walk per master in
 * parallel, and cache clears on every master ({@code slotwise.keyspace.enabled}),
 * imperative on both clients and reactive on Lettuce.
 */
public final class KeyspaceFeature {

	/** The feature's name. */
	public static final String NAME = "keyspace";

	private static final Method SCAN = keyCommand("scan", ScanOptions.class);

	private static final Method KEYS = keyCommand("keys", byte[].class);

	private KeyspaceFeature() {
	}

	/**
	 * Returns the feature over Jedis: the walks' commands on the node pools, run on the
	 * shared executor.
	 * @param settings the walks' limits
	 * @param observers supplies what sees each scan, asked when the feature starts
	 * @return the feature
	 */
	public static JedisClusterFeature jedis(ScanSettings settings, Supplier<ScanObserver> observers) {
		check(settings, observers);
		return JedisClusterFeature.of(NAME, (runtime) -> {
			ScanObserver observer = observers.get();
			KeyspaceCommands keyspace = KeyspaceSupport.jedis(settings, observer, runtime.client(),
					runtime.topologyProvider(), runtime.executor().executor(),
					runtime.readFrom() != MultiKeyReadFrom.MASTER);
			return (connection) -> new KeyWalkLayer(() -> keyspace, connection::isPipelinedOrQueueing);
		});
	}

	/**
	 * Returns the feature over Lettuce: asynchronous commands on the node connections of
	 * the connection's native cluster connection; the reactive connections' {@code scan}
	 * and {@code keys} walk the factory's.
	 * @param settings the walks' limits
	 * @param observers supplies what sees each scan, asked when the feature starts
	 * @return the feature
	 */
	public static LettuceClusterFeature lettuce(ScanSettings settings, Supplier<ScanObserver> observers) {
		check(settings, observers);
		return LettuceClusterFeature.of(NAME, (runtime) -> {
			ScanObserver observer = observers.get();
			// The reactive scan and keys walk the factory's native connection; their node
			// failures ask for the same (rate-limited) partition refresh as every other
			// feature's.
			runtime.factory()
				.setReactiveKeyspace(new LettuceReactiveKeyspace(runtime.factory()::getOrCreateNativeClusterConnection,
						(nativeConnection) -> KeyspaceSupport.lettuce(settings, observer, nativeConnection,
								() -> runtime.refreshTopology(System.nanoTime()))));
			return (connection) -> {
				// Created on first use, over the same native connection as the
				// connection's other features.
				EngineHolder<StatefulRedisClusterConnection<byte[], byte[]>, KeyspaceCommands> keyspace = new EngineHolder<>(
						(nativeConnection) -> KeyspaceSupport.lettuce(settings, observer, nativeConnection,
								() -> connection.invalidateTopology(System.nanoTime())));
				return new KeyWalkLayer(() -> keyspace.get(connection.nativeConnection()),
						connection::isPipelinedOrQueueing);
			};
		});
	}

	private static void check(ScanSettings settings, Supplier<ScanObserver> observers) {
		Assert.notNull(settings, "'settings' must not be null");
		Assert.notNull(observers, "'observers' must not be null");
	}

	private static Method keyCommand(String name, Class<?> parameter) {
		try {
			return RedisKeyCommands.class.getMethod(name, parameter);
		}
		catch (NoSuchMethodException ex) {
			throw new IllegalStateException(
					"Spring Data Redis has no RedisKeyCommands." + name + "(" + parameter.getSimpleName() + ")", ex);
		}
	}

	/**
	 * The key walks in front of one connection's key commands: {@code scan(ScanOptions)}
	 * and {@code keys(byte[])} walk every master. A dynamic proxy, as the multi-key layer
	 * is: {@link RedisKeyCommands} has dozens of methods and gains more in every Spring
	 * Data Redis release.
	 */
	private record KeyWalkLayer(Supplier<KeyspaceCommands> keyspace, BooleanSupplier bypass) implements ConnectionPart {

		@Override
		public RedisKeyCommands keys(RedisKeyCommands next) {
			return (RedisKeyCommands) Proxy.newProxyInstance(RedisKeyCommands.class.getClassLoader(),
					new Class<?>[] { RedisKeyCommands.class }, (proxy, method, args) -> {
						if (method.getDeclaringClass() == Object.class) {
							return switch (method.getName()) {
								case "equals" -> proxy == args[0];
								case "hashCode" -> System.identityHashCode(proxy);
								default -> "Slotwise key walks " + next;
							};
						}
						if (!this.bypass.getAsBoolean() && method.equals(SCAN)) {
							if (args[0] == null) {
								throw new IllegalArgumentException("'options' must not be null");
							}
							return this.keyspace.get().scan((ScanOptions) args[0]);
						}
						if (!this.bypass.getAsBoolean() && method.equals(KEYS)) {
							if (args[0] == null) {
								throw new IllegalArgumentException("'pattern' must not be null");
							}
							return this.keyspace.get().keys((byte[]) args[0]);
						}
						try {
							return method.invoke(next, args);
						}
						catch (InvocationTargetException ex) {
							throw ex.getCause();
						}
					});
		}

	}

}
