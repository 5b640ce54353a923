package dev.slotwise.internal.multikey;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactoryCustomizer;
import dev.slotwise.internal.pubsub.ClusterPubSub;
import dev.slotwise.internal.pubsub.LettucePubSubSupport;
import dev.slotwise.internal.pubsub.PubSubObserver;
import dev.slotwise.internal.pubsub.PubSubRuntime;
import dev.slotwise.internal.topology.LettuceTopology;
import dev.slotwise.internal.transaction.LettuceTransactions;
import dev.slotwise.internal.transaction.TransactionObserver;
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

	/** The default of {@code slotwise.topology.min-refresh-interval}, for callers without properties. */
	static final Duration DEFAULT_MIN_REFRESH_INTERVAL = Duration.ofSeconds(1);

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
		return customizer(settings, observer, DEFAULT_MIN_REFRESH_INTERVAL);
	}

	/**
	 * Returns a customizer like {@link #customizer(MultiKeySettings, MultiKeyObserver)} whose partition reloads after
	 * {@code MOVED} or a node failure start at most once per interval ({@code slotwise.topology.min-refresh-interval},
	 * the same bound Slotwise's topology puts on every refresh).
	 * @param settings the engine's limits
	 * @param observer sees each cross-slot call and redirect
	 * @param minRefreshInterval the least time between two partition reloads the engine asks for
	 * @return the customizer
	 */
	public static SlotwiseLettuceConnectionFactoryCustomizer customizer(MultiKeySettings settings,
			MultiKeyObserver observer, Duration minRefreshInterval) {
		return customizer(settings, observer, minRefreshInterval, null, PubSubObserver.NONE, null, null);
	}

	/**
	 * Returns a customizer like {@link #customizer(MultiKeySettings, MultiKeyObserver, Duration)} whose connections
	 * also subscribe across the cluster (keyspace and keyevent notifications on every master) and, imperative and
	 * reactive, hand {@code scan} and {@code keys} to cluster-wide key walks.
	 * @param settings the engine's limits
	 * @param observer sees each cross-slot call and redirect
	 * @param minRefreshInterval the least time between two partition reloads the engine asks for
	 * @param pubSubRuntime the threads of cluster subscriptions, owned by the caller; {@code null} leaves Spring Data
	 * Redis's subscriptions (on one node) in place
	 * @param pubSubObserver sees subscriptions and messages
	 * @param keyspaces creates the key walks over a native connection, or {@code null} to leave them to Spring Data
	 * Redis
	 * @param transactions sees the cluster transactions the connections then run ({@code MULTI}/{@code EXEC} on one
	 * slot's master, on dedicated connections), or {@code null} to leave transactions to Spring Data Redis (which
	 * refuses them on a cluster)
	 * @return the customizer
	 */
	public static SlotwiseLettuceConnectionFactoryCustomizer customizer(MultiKeySettings settings,
			MultiKeyObserver observer, Duration minRefreshInterval, @Nullable PubSubRuntime pubSubRuntime,
			PubSubObserver pubSubObserver, @Nullable Keyspaces keyspaces, @Nullable TransactionObserver transactions) {
		if (minRefreshInterval == null || minRefreshInterval.isNegative()) {
			throw new IllegalArgumentException("'minRefreshInterval' must not be null or negative");
		}
		if (pubSubObserver == null) {
			throw new IllegalArgumentException("'pubSubObserver' must not be null");
		}
		if (observer == null) {
			throw new IllegalArgumentException("'observer' must not be null");
		}
		if (settings == null) {
			throw new IllegalArgumentException("'settings' must not be null");
		}
		// Fails start-up, naming the method, should Spring Data Redis no longer have a method the engine serves.
		MultiKeyCommands.requireInterceptedMethods();
		return (factory) -> {
			PartitionRefresher refresher = new PartitionRefresher(factory, minRefreshInterval);
			PubSubBinding pubSub = (pubSubRuntime != null) ? new PubSubBinding(factory, pubSubRuntime, pubSubObserver)
					: null;
			AskingConnection asking = new AskingConnection(factory::getNativeClient);
			// Dedicated node connections for transactions, through the factory's current client, closed as the
			// factory stops.
			LettuceTransactions clusterTransactions = (transactions != null)
					? new LettuceTransactions(factory::getNativeClient) : null;
			if (clusterTransactions != null) {
				factory.addStoppingListener(CONTRIBUTOR, (stopping) -> clusterTransactions.stop());
			}
			factory.claimClusterConnections(CONTRIBUTOR, (shared, provider, topologyProvider, executor, timeout) -> {
				LongConsumer invalidate = (routedAt) -> {
					if (topologyProvider instanceof RefreshableTopologyProvider refreshable) {
						refreshable.invalidate();
					}
					refresher.refresh(routedAt);
				};
				return new SlotwiseLettuceClusterConnection(shared, provider, topologyProvider, executor, timeout,
						(connection) -> new MultiKeyEngine(new LettuceNodeTransport(connection, asking, invalidate),
								settings, observer),
						(pubSub != null) ? pubSub.current() : null,
						(keyspaces != null) ? (connection) -> keyspaces.create(connection,
								() -> invalidate.accept(System.nanoTime())) : null,
						(clusterTransactions != null) ? (pipelined) -> clusterTransactions.create(timeout, pipelined,
								transactions) : null);
			});
			// Reactive calls share the imperative path's native connection (or, with sharing off, run over one of the
			// factory's own), ASK connection and partition refresh.
			factory.setReactiveMultiKeyRouter(new LettuceReactiveMultiKey(factory::getOrCreateNativeClusterConnection,
					(connection) -> new MultiKeyEngine(new LettuceNodeTransport(connection, asking, refresher::refresh),
							settings, observer)));
			// The reactive scan and keys walk the same native connection; their node failures ask for the same
			// (rate-limited) partition refresh as the reactive multi-key calls.
			if (keyspaces != null) {
				factory.setReactiveKeyspace(new LettuceReactiveKeyspace(factory::getOrCreateNativeClusterConnection,
						(connection) -> keyspaces.create(connection, refresher::refresh)));
			}
		};
	}

	/**
	 * One {@link ClusterPubSub} per started client: a restarted factory has a new one.
	 */
	private static final class PubSubBinding {

		private final SlotwiseLettuceConnectionFactory factory;

		private final PubSubRuntime runtime;

		private final PubSubObserver observer;

		private @Nullable AbstractRedisClient client;

		private @Nullable ClusterPubSub pubSub;

		PubSubBinding(SlotwiseLettuceConnectionFactory factory, PubSubRuntime runtime, PubSubObserver observer) {
			this.factory = factory;
			this.runtime = runtime;
			this.observer = observer;
		}

		synchronized @Nullable ClusterPubSub current() {
			AbstractRedisClient client = this.factory.getNativeClient();
			if (!(client instanceof RedisClusterClient cluster)) {
				return null;
			}
			ClusterPubSub pubSub = this.pubSub;
			if (client != this.client || pubSub == null) {
				pubSub = LettucePubSubSupport.create(this.runtime, cluster,
						this.factory::getOrCreateNativeClusterConnection, this.observer);
				this.pubSub = pubSub;
				this.client = client;
			}
			return pubSub;
		}

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
	 * one reload in flight and at most one per minimum interval, so that a burst of redirects cannot storm the
	 * cluster.
	 */
	static final class PartitionRefresher {

		private final long minIntervalNanos;

		private final SlotwiseLettuceConnectionFactory factory;

		private final AtomicBoolean refreshing = new AtomicBoolean();

		private final AtomicLong last;

		PartitionRefresher(SlotwiseLettuceConnectionFactory factory, Duration minInterval) {
			this.factory = factory;
			this.minIntervalNanos = minInterval.toNanos();
			this.last = new AtomicLong(System.nanoTime() - this.minIntervalNanos);
		}

		void refresh() {
			refresh(System.nanoTime());
		}

		/**
		 * Asks for a reload on behalf of a call routed at {@code routedAt}; nothing when the client applied a
		 * topology change since then, which explains what the call saw (issue 19: in a fleet, the calls in flight
		 * when a failover is found fail or time out just after it, and each asked for one more refresh).
		 */
		void refresh(long routedAt) {
			long now = System.nanoTime();
			if (now - this.last.get() < this.minIntervalNanos) {
				return;
			}
			AbstractRedisClient client = this.factory.getNativeClient();
			if (client instanceof RedisClusterClient cluster && LettuceTopology.changedSince(cluster, routedAt)) {
				return;
			}
			if (!this.refreshing.compareAndSet(false, true)) {
				return;
			}
			this.last.set(now);
			if (client instanceof RedisClusterClient cluster) {
				cluster.refreshPartitionsAsync().whenComplete((ignored, failure) -> this.refreshing.set(false));
			}
			else {
				this.refreshing.set(false);
			}
		}

	}

}
