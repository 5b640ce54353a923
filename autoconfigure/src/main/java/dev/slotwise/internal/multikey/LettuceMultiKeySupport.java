package dev.slotwise.internal.multikey;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactoryCustomizer;
import dev.slotwise.internal.topology.RefreshableTopologyProvider;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.jspecify.annotations.Nullable;

/**
 * Puts slot-aware parallel multi-key commands into a {@link SlotwiseLettuceConnectionFactory}.
 */
public final class LettuceMultiKeySupport {

	/** How the engine names itself to the connection factory's hooks. */
	static final String CONTRIBUTOR = "slotwise-multikey";

	private LettuceMultiKeySupport() {
	}

	/**
	 * Returns a customizer that makes every cluster connection of the factory run cross-slot {@code mGet},
	 * {@code mSet}, {@code del}, {@code unlink} and {@code exists} on the engine, over Lettuce's own node connections
	 * (no extra threads; one extra connection per node, opened only when a slot migration answers {@code ASK}), and
	 * makes its reactive cluster connections run the same calls on the engine without blocking.
	 * @param settings the engine's limits
	 * @return the customizer
	 */
	public static SlotwiseLettuceConnectionFactoryCustomizer customizer(MultiKeySettings settings) {
		return customizer(settings, MultiKeyObserver.NONE);
	}

	/**
	 * Returns a customizer like {@link #customizer(MultiKeySettings)} whose engine reports to an observer.
	 * @param settings the engine's limits
	 * @param observer sees each cross-slot call and redirect
	 * @return the customizer
	 */
	public static SlotwiseLettuceConnectionFactoryCustomizer customizer(MultiKeySettings settings,
			MultiKeyObserver observer) {
		return customizer(settings, observer, null);
	}

	/**
	 * Returns a customizer like {@link #customizer(MultiKeySettings, MultiKeyObserver)} whose connections, imperative
	 * and reactive, hand {@code scan} and {@code keys} to cluster-wide key walks.
	 * @param settings the engine's limits
	 * @param observer sees each cross-slot call and redirect
	 * @param keyspaces creates the key walks over a native connection, or {@code null} to leave them to Spring Data
	 * Redis
	 * @return the customizer
	 */
	public static SlotwiseLettuceConnectionFactoryCustomizer customizer(MultiKeySettings settings,
			MultiKeyObserver observer, @Nullable Keyspaces keyspaces) {
		if (observer == null) {
			throw new IllegalArgumentException("'observer' must not be null");
		}
		if (settings == null) {
			throw new IllegalArgumentException("'settings' must not be null");
		}
		// Fails start-up, naming the method, should Spring Data Redis no longer have a method the engine serves.
		MultiKeyCommands.requireInterceptedMethods();
		return (factory) -> {
			PartitionRefresher refresher = new PartitionRefresher(factory);
			AskingConnection asking = new AskingConnection(factory::getNativeClient);
			factory.claimClusterConnections(CONTRIBUTOR, (shared, provider, topologyProvider, executor, timeout) -> {
				Runnable invalidate = () -> {
					if (topologyProvider instanceof RefreshableTopologyProvider refreshable) {
						refreshable.invalidate();
					}
					refresher.refresh();
				};
				return new SlotwiseLettuceClusterConnection(shared, provider, topologyProvider, executor, timeout,
						(connection) -> new MultiKeyEngine(new LettuceNodeTransport(connection, asking, invalidate),
								settings, observer),
						(keyspaces != null) ? (connection) -> keyspaces.create(connection, invalidate) : null);
			});
			if (keyspaces != null) {
				// SLOTWISE-KEYSPACE reactive wiring (issue #20): the reactive connections' scan/keys go to the same
				// key walks, over the native connection the reactive multi-key calls use. Re-wire onto the reactive
				// decorator when it moves to dev.slotwise.
				factory.setReactiveKeyspace(new LettuceReactiveKeyspace(factory::getOrCreateNativeClusterConnection,
						(connection) -> keyspaces.create(connection, refresher::refresh)));
			}
			// Reactive calls share the imperative path's native connection (or, with sharing off, run over one of the
			// factory's own), ASK connection and partition refresh.
			factory.setReactiveMultiKeyRouter(new LettuceReactiveMultiKey(factory::getOrCreateNativeClusterConnection,
					(connection) -> new MultiKeyEngine(new LettuceNodeTransport(connection, asking, refresher::refresh),
							settings, observer)));
		};
	}

	/**
	 * Creates the cluster-wide key walks over one native connection ({@code dev.slotwise.internal.keyspace}).
	 */
	@FunctionalInterface
	public interface Keyspaces {

		/**
		 * Creates the key walks.
		 * @param connection the native cluster connection whose node connections the walks use
		 * @param invalidateTopology asks for a partition refresh after a node failed
		 * @return the key walks
		 */
		ReactiveKeyspaceCommands create(StatefulRedisClusterConnection<byte[], byte[]> connection,
				Runnable invalidateTopology);

	}

	/**
	 * Asks Lettuce to reload its partitions after a {@code MOVED} reply or a node failure seen by the engine: at most
	 * one reload in flight and at most one per second, so that a burst of redirects cannot storm the cluster.
	 */
	static final class PartitionRefresher {

		private static final long MIN_INTERVAL = TimeUnit.SECONDS.toNanos(1);

		private final SlotwiseLettuceConnectionFactory factory;

		private final AtomicBoolean refreshing = new AtomicBoolean();

		private final AtomicLong last = new AtomicLong(System.nanoTime() - MIN_INTERVAL);

		PartitionRefresher(SlotwiseLettuceConnectionFactory factory) {
			this.factory = factory;
		}

		void refresh() {
			long now = System.nanoTime();
			if (now - this.last.get() < MIN_INTERVAL || !this.refreshing.compareAndSet(false, true)) {
				return;
			}
			this.last.set(now);
			AbstractRedisClient client = this.factory.getNativeClient();
			if (client instanceof RedisClusterClient cluster) {
				cluster.refreshPartitionsAsync().whenComplete((ignored, failure) -> this.refreshing.set(false));
			}
			else {
				this.refreshing.set(false);
			}
		}

	}

}
