package dev.slotwise.internal.cluster;

import java.util.List;
import java.util.function.Supplier;

import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.connection.SlotwiseJedisConnectionFactoryCustomizer;
import dev.slotwise.internal.cluster.ConnectionParts.Started;
import dev.slotwise.internal.multikey.EngineHolder;
import dev.slotwise.internal.multikey.jedis.MultiKeyExecutor;
import dev.slotwise.internal.multikey.MultiKeySettings;
import dev.slotwise.multikey.MultiKeyReadFrom;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.data.redis.connection.ClusterCommandExecutor;
import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.jedis.JedisClusterConnection;

/**
 * Makes a {@link SlotwiseJedisConnectionFactory} hand out
 * {@link SlotwiseJedisClusterConnection}s composed of the features the application left
 * on. With no feature on, Spring Data Redis's own connections stay.
 */
public final class JedisClusterConnections implements SlotwiseJedisConnectionFactoryCustomizer {

	/** How the composition names itself to the connection factory's hooks. */
	static final String CONTRIBUTOR = "slotwise-cluster-connections";

	private static final Log logger = LogFactory.getLog(JedisClusterConnections.class);

	private final List<JedisClusterFeature> features;

	private final MultiKeySettings settings;

	private final MultiKeyReadFrom readFrom;

	private final Supplier<MultiKeyExecutor> executor;

	/**
	 * Creates the composition.
	 * @param features the features, in order (the first one's command layer outermost)
	 * @param settings the limits of node batches
	 * @param readFrom where reads may go
	 * @param executor supplies the executor of node batches when a feature first needs
	 * it; owned by the caller
	 */
	public JedisClusterConnections(List<JedisClusterFeature> features, MultiKeySettings settings,
			MultiKeyReadFrom readFrom, Supplier<MultiKeyExecutor> executor) {
		if (features == null || settings == null || readFrom == null || executor == null) {
			throw new IllegalArgumentException("'features', 'settings', 'readFrom' and 'executor' must not be null");
		}
		this.features = List.copyOf(features);
		this.settings = settings;
		this.readFrom = readFrom;
		this.executor = executor;
	}

	@Override
	public void customize(SlotwiseJedisConnectionFactory factory) {
		if (this.features.isEmpty()) {
			return;
		}
		logger.debug("Jedis cluster connections composed of "
				+ this.features.stream().map(JedisClusterFeature::name).toList());
		factory.claimClusterConnections(CONTRIBUTOR, new ConnectionCreator());
	}

	/**
	 * Creates the {@link SlotwiseJedisClusterConnection}s over the running factory's
	 * client, topology provider and command executor.
	 */
	private final class ConnectionCreator implements SlotwiseJedisConnectionFactory.ClusterConnectionCreator {

		/**
		 * The features started once per factory start: a restarted factory has a new
		 * client and provider.
		 */
		private final EngineHolder<Running, List<Started<ConnectionView>>> started = new EngineHolder<>(this::start);

		@Override
		public JedisClusterConnection create(RedisClusterClient client, ClusterCommandExecutor executor,
				ClusterTopologyProvider topologyProvider) {
			List<Started<ConnectionView>> features = this.started.get(new Running(client, topologyProvider));
			return new SlotwiseJedisClusterConnection(client, executor, topologyProvider, features);
		}

		private List<Started<ConnectionView>> start(Running running) {
			JedisClusterRuntime runtime = new JedisClusterRuntime(running.client(), running.topologyProvider(),
					JedisClusterConnections.this.executor, JedisClusterConnections.this.settings,
					JedisClusterConnections.this.readFrom);
			return ConnectionParts.start(JedisClusterConnections.this.features, JedisClusterFeature::name,
					(feature) -> feature.start(runtime));
		}

	}

	/**
	 * What the features run over in a started factory.
	 */
	private record Running(RedisClusterClient client, ClusterTopologyProvider topologyProvider) {
	}

}
