package dev.slotwise.internal.multikey;

import java.util.function.UnaryOperator;

import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.connection.SlotwiseJedisConnectionFactoryCustomizer;
import dev.slotwise.internal.pipeline.JedisClusterPipelining;
import dev.slotwise.internal.pipeline.PipelineObserver;
import dev.slotwise.internal.pubsub.ClusterPubSub;
import dev.slotwise.internal.pubsub.JedisPubSubSupport;
import dev.slotwise.internal.pubsub.PubSubObserver;
import dev.slotwise.internal.pubsub.PubSubRuntime;
import dev.slotwise.internal.transaction.JedisTransactions;
import dev.slotwise.internal.transaction.TransactionObserver;
import dev.slotwise.multikey.MultiKeyReadFrom;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.jedis.JedisClusterConnection;

/**
 * Puts slot-aware parallel multi-key commands into a {@link SlotwiseJedisConnectionFactory}.
 */
public final class JedisMultiKeySupport {

	/** How the engine names itself to the connection factory's hooks. */
	static final String CONTRIBUTOR = "slotwise-multikey";

	private JedisMultiKeySupport() {
	}

	/**
	 * Returns a customizer that makes every cluster connection of the factory run cross-slot {@code mGet},
	 * {@code mSet}, {@code del}, {@code unlink} and {@code exists} on the engine.
	 * @param settings the engine's limits
	 * @param executor the threads node batches run on; owned by the caller, who closes it
	 * @return the customizer
	 */
	public static SlotwiseJedisConnectionFactoryCustomizer customizer(MultiKeySettings settings,
			MultiKeyExecutor executor) {
		return customizer(settings, executor, MultiKeyObserver.NONE);
	}

	/**
	 * Returns a customizer like {@link #customizer(MultiKeySettings, MultiKeyExecutor)} whose engine reports to an
	 * observer.
	 * @param settings the engine's limits
	 * @param executor the threads node batches run on; owned by the caller, who closes it
	 * @param observer sees each cross-slot call and redirect
	 * @return the customizer
	 */
	public static SlotwiseJedisConnectionFactoryCustomizer customizer(MultiKeySettings settings,
			MultiKeyExecutor executor, MultiKeyObserver observer) {
		return customizer(settings, executor, observer, PipelineObserver.NONE);
	}

	/**
	 * Returns a customizer like {@link #customizer(MultiKeySettings, MultiKeyExecutor, MultiKeyObserver)} whose
	 * cluster pipelines (which the same customizer turns on) report to an observer.
	 * @param settings the engine's limits; {@code maxCommandsPerPipeline} and {@code maxRedirects} apply to
	 * pipelines too
	 * @param executor the threads node batches run on; owned by the caller, who closes it
	 * @param observer sees each cross-slot call and redirect
	 * @param pipelineObserver sees each pipeline
	 * @return the customizer
	 */
	public static SlotwiseJedisConnectionFactoryCustomizer customizer(MultiKeySettings settings,
			MultiKeyExecutor executor, MultiKeyObserver observer, PipelineObserver pipelineObserver) {
		return customizer(settings, executor, observer, pipelineObserver, MultiKeyReadFrom.MASTER);
	}

	/**
	 * Returns a customizer like
	 * {@link #customizer(MultiKeySettings, MultiKeyExecutor, MultiKeyObserver, PipelineObserver)} whose engine sends
	 * its reads where {@code readFrom} says.
	 * @param settings the engine's limits; {@code maxCommandsPerPipeline} and {@code maxRedirects} apply to
	 * pipelines too
	 * @param executor the threads node batches run on; owned by the caller, who closes it
	 * @param observer sees each cross-slot call and redirect
	 * @param pipelineObserver sees each pipeline
	 * @param readFrom where cross-slot reads ({@code MGET}, {@code EXISTS}) go; pipelines stay on masters
	 * @return the customizer
	 */
	public static SlotwiseJedisConnectionFactoryCustomizer customizer(MultiKeySettings settings,
			MultiKeyExecutor executor, MultiKeyObserver observer, PipelineObserver pipelineObserver,
			MultiKeyReadFrom readFrom) {
		return customizer(settings, executor, observer, pipelineObserver, readFrom, null, PubSubObserver.NONE, null,
				null);
	}

	/**
	 * Returns a customizer like
	 * {@link #customizer(MultiKeySettings, MultiKeyExecutor, MultiKeyObserver, PipelineObserver, MultiKeyReadFrom)} whose
	 * connections also subscribe across the cluster (keyspace and keyevent notifications on every master) and hand
	 * {@code scan(ScanOptions)} and {@code keys(byte[])} to cluster-wide key walks.
	 * @param settings the engine's limits; {@code maxCommandsPerPipeline} and {@code maxRedirects} apply to
	 * pipelines too
	 * @param executor the threads node batches (and key walks) run on; owned by the caller, who closes it
	 * @param observer sees each cross-slot call and redirect
	 * @param pipelineObserver sees each pipeline
	 * @param readFrom where cross-slot reads ({@code MGET}, {@code EXISTS}) and key walks go; pipelines stay on masters
	 * @param pubSubRuntime the threads of cluster subscriptions, owned by the caller; {@code null} leaves Spring Data
	 * Redis's subscriptions (on one node) in place
	 * @param pubSubObserver sees subscriptions and messages
	 * @param keyspaces creates the key walks of a client, or {@code null} to leave them to Spring Data Redis
	 * @param transactions sees the cluster transactions the connections then run ({@code MULTI}/{@code EXEC} on one
	 * slot's master), or {@code null} to leave transactions to Spring Data Redis (which refuses them on a cluster)
	 * @return the customizer
	 */
	public static SlotwiseJedisConnectionFactoryCustomizer customizer(MultiKeySettings settings,
			MultiKeyExecutor executor, MultiKeyObserver observer, PipelineObserver pipelineObserver,
			MultiKeyReadFrom readFrom, @Nullable PubSubRuntime pubSubRuntime, PubSubObserver pubSubObserver,
			@Nullable Keyspaces keyspaces, @Nullable TransactionObserver transactions) {
		if (pubSubObserver == null) {
			throw new IllegalArgumentException("'pubSubObserver' must not be null");
		}
		if (readFrom == null) {
			throw new IllegalArgumentException("'readFrom' must not be null");
		}
		if (pipelineObserver == null) {
			throw new IllegalArgumentException("'pipelineObserver' must not be null");
		}
		if (observer == null) {
			throw new IllegalArgumentException("'observer' must not be null");
		}
		if (settings == null) {
			throw new IllegalArgumentException("'settings' must not be null");
		}
		if (executor == null) {
			throw new IllegalArgumentException("'executor' must not be null");
		}
		// Fails start-up, naming the method, should Spring Data Redis no longer have a method the engine serves.
		MultiKeyCommands.requireInterceptedMethods();
		return (factory) -> factory.claimClusterConnections(CONTRIBUTOR,
				new ConnectionReplacer(factory, settings, executor, observer, pipelineObserver, readFrom, pubSubRuntime,
						pubSubObserver, keyspaces, transactions));
	}

	/**
	 * Hands out a {@link SlotwiseJedisClusterConnection} over the same client, topology provider and command
	 * executor in place of the connection Spring Data Redis built (which holds no resources of its own).
	 */
	private static final class ConnectionReplacer implements UnaryOperator<JedisClusterConnection> {

		private final SlotwiseJedisConnectionFactory factory;

		private final MultiKeySettings settings;

		private final MultiKeyExecutor executor;

		private final MultiKeyObserver observer;

		private final PipelineObserver pipelineObserver;

		private final MultiKeyReadFrom readFrom;

		private final @Nullable PubSubRuntime pubSubRuntime;

		private final PubSubObserver pubSubObserver;

		private final @Nullable Keyspaces keyspaces;

		private final @Nullable TransactionObserver transactions;

		/** One engine (and pipelining) per factory start: a restarted factory has a new client and provider. */
		private final EngineHolder<Running, Engine> engine = new EngineHolder<>(this::build);

		ConnectionReplacer(SlotwiseJedisConnectionFactory factory, MultiKeySettings settings, MultiKeyExecutor executor,
				MultiKeyObserver observer, PipelineObserver pipelineObserver, MultiKeyReadFrom readFrom,
				@Nullable PubSubRuntime pubSubRuntime, PubSubObserver pubSubObserver, @Nullable Keyspaces keyspaces,
				@Nullable TransactionObserver transactions) {
			this.factory = factory;
			this.transactions = transactions;
			this.pubSubRuntime = pubSubRuntime;
			this.pubSubObserver = pubSubObserver;
			this.keyspaces = keyspaces;
			this.readFrom = readFrom;
			this.pipelineObserver = pipelineObserver;
			this.settings = settings;
			this.executor = executor;
			this.observer = observer;
		}

		@Override
		public JedisClusterConnection apply(JedisClusterConnection connection) {
			RedisClusterClient client = this.factory.getRequiredClusterClient();
			ClusterTopologyProvider topologyProvider = this.factory.getRequiredTopologyProvider();
			Engine current = this.engine.get(new Running(client, topologyProvider));
			TransactionObserver transactions = this.transactions;
			return new SlotwiseJedisClusterConnection(client, this.factory.getRequiredCommandExecutor(),
					topologyProvider, current.engine, current.pipelining, current.pubSub, current.keyspace,
					(transactions != null) ? (pipelined) -> JedisTransactions.create(client, topologyProvider,
							pipelined, transactions) : null);
		}

		/**
		 * Builds the engine and the pipelining on the engine's transport.
		 */
		private Engine build(Running running) {
			RedisClusterClient client = running.client();
			JedisNodeTransport transport = new JedisNodeTransport(client, running.topologyProvider(),
					this.executor.executor(), this.readFrom, this.settings.timeout(), this.executor.releaser(),
					this.executor.inlineBatchBytes());
			PubSubRuntime pubSubRuntime = this.pubSubRuntime;
			Keyspaces keyspaces = this.keyspaces;
			return new Engine(new MultiKeyEngine(transport, this.settings, this.observer),
					new JedisClusterPipelining(client, transport::router, transport::invalidateTopology,
							this.executor.executor(), this.settings.maxCommandsPerPipeline(),
							this.settings.maxRedirects(), this.pipelineObserver),
					(pubSubRuntime != null) ? JedisPubSubSupport.create(pubSubRuntime, client,
							running.topologyProvider(), this.pubSubObserver) : null,
					(keyspaces != null) ? keyspaces.create(client, running.topologyProvider(), this.executor.executor(),
							this.readFrom != MultiKeyReadFrom.MASTER) : null);
		}

	}

	/**
	 * What the engine runs over in a started factory.
	 */
	private record Running(RedisClusterClient client, ClusterTopologyProvider topologyProvider) {
	}

	private record Engine(MultiKeyEngine engine, JedisClusterPipelining pipelining, @Nullable ClusterPubSub pubSub,
			@Nullable KeyspaceCommands keyspace) {
	}

	/**
	 * Creates the cluster-wide key walks of one started client ({@code dev.slotwise.internal.keyspace}).
	 */
	@FunctionalInterface
	public interface Keyspaces {

		/**
		 * Creates the key walks.
		 * @param client the started client, whose node pools the walks borrow from
		 * @param topologyProvider the factory's topology provider
		 * @param executor the multi-key executor's threads
		 * @param readFromReplicas whether the application reads from replicas
		 * @return the key walks
		 */
		KeyspaceCommands create(RedisClusterClient client, ClusterTopologyProvider topologyProvider,
				java.util.concurrent.Executor executor, boolean readFromReplicas);

	}

}
