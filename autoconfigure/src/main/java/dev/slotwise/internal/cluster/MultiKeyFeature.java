package dev.slotwise.internal.cluster;

import java.util.function.Supplier;

import dev.slotwise.internal.multikey.EngineHolder;
import dev.slotwise.internal.multikey.LettuceNodeTransport;
import dev.slotwise.internal.multikey.LettuceReactiveMultiKey;
import dev.slotwise.internal.multikey.MultiKeyCommands;
import dev.slotwise.internal.multikey.MultiKeyEngine;
import dev.slotwise.internal.multikey.MultiKeyObserver;
import dev.slotwise.internal.multikey.MultiKeySettings;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;

import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisStringCommands;
import org.springframework.util.Assert;

/**
 * Cross-slot {@code mGet}, {@code mSet}, {@code del}, {@code unlink} and {@code exists}
 * on the multi-key engine ({@code slotwise.multikey.enabled}), imperative on both clients
 * and reactive on Lettuce.
 */
public final class MultiKeyFeature {

	/** The feature's name. */
	public static final String NAME = "multikey";

	private MultiKeyFeature() {
	}

	/**
	 * Returns the feature over Jedis: node batches on the shared node transport and
	 * executor.
	 * @param observers supplies what sees each cross-slot call and redirect, asked when
	 * the feature starts (so that a client nobody uses gets no meters)
	 * @return the feature
	 */
	public static JedisClusterFeature jedis(Supplier<MultiKeyObserver> observers) {
		check(observers);
		return JedisClusterFeature.of(NAME, (runtime) -> {
			MultiKeyObserver observer = observers.get();
			MultiKeyEngine engine = new MultiKeyEngine(runtime.transport(), runtime.settings(), observer);
			return (connection) -> layer(new MultiKeyCommands(() -> engine, connection::isPipelinedOrQueueing));
		});
	}

	/**
	 * Returns the feature over Lettuce: node batches written on Lettuce's own node
	 * connections (no extra threads; one extra connection per node, opened only when a
	 * slot migration answers {@code ASK}); the reactive cluster connections run the same
	 * calls on the engine without blocking.
	 * @param observers supplies what sees each cross-slot call and redirect, asked when
	 * the feature starts (so that a client nobody uses gets no meters)
	 * @return the feature
	 */
	public static LettuceClusterFeature lettuce(Supplier<MultiKeyObserver> observers) {
		check(observers);
		return LettuceClusterFeature.of(NAME, (runtime) -> {
			MultiKeyObserver observer = observers.get();
			MultiKeySettings settings = runtime.settings();
			// Reactive calls share the imperative path's native connection (or, with
			// sharing off, run over one of the factory's own), ASK connection and
			// partition refresh.
			runtime.factory()
				.setReactiveMultiKeyRouter(new LettuceReactiveMultiKey(
						runtime.factory()::getOrCreateNativeClusterConnection,
						(nativeConnection) -> new MultiKeyEngine(
								new LettuceNodeTransport(nativeConnection, runtime.asking(), runtime::refreshTopology),
								settings, observer)));
			return (connection) -> {
				// Created on first use, so that a dedicated connection (when sharing is
				// off) opens only when a cross-slot call needs it.
				EngineHolder<StatefulRedisClusterConnection<byte[], byte[]>, MultiKeyEngine> engine = new EngineHolder<>(
						(nativeConnection) -> new MultiKeyEngine(new LettuceNodeTransport(nativeConnection,
								runtime.asking(), connection::invalidateTopology), settings, observer));
				return layer(new MultiKeyCommands(() -> engine.get(connection.nativeConnection()),
						connection::isPipelinedOrQueueing));
			};
		});
	}

	private static ConnectionPart layer(MultiKeyCommands commands) {
		return new ConnectionPart() {

			@Override
			public RedisStringCommands strings(RedisStringCommands next) {
				return commands.strings(() -> next);
			}

			@Override
			public RedisKeyCommands keys(RedisKeyCommands next) {
				return commands.keys(() -> next);
			}

		};
	}

	private static void check(Supplier<MultiKeyObserver> observers) {
		Assert.notNull(observers, "'observers' must not be null");
		// Fails start-up, naming the method, should Spring Data Redis no longer have a
		// method the engine serves.
		MultiKeyCommands.requireInterceptedMethods();
	}

}
