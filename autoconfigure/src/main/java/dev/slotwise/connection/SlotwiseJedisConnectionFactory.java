package dev.slotwise.connection;

import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisClusterOperationException;

import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.PassThroughExceptionTranslationStrategy;
import org.springframework.data.redis.connection.ClusterCommandExecutor;
import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.jedis.JedisClientBuilderCustomizer;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClusterConnection;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.util.Assert;

/**
 * A {@link JedisConnectionFactory} for Redis Cluster whose topology provider, cluster
 * connections and client life cycle are extended through named contributions, made before
 * {@link #afterPropertiesSet()}. Two kinds of hooks exist:
 * <ul>
 * <li>exclusive hooks, which one contributor at most may fill; a second claim fails with
 * an {@link IllegalStateException} naming both contributors:
 * <ul>
 * <li>{@link #claimTopologyProvider(String, Function)} replaces Spring Data Redis's
 * topology provider;</li>
 * <li>{@link #claimClusterConnections(String, ClusterConnectionCreator)} creates every
 * cluster connection handed out, typically a {@link JedisClusterConnection}
 * subclass;</li>
 * </ul>
 * </li>
 * <li>ordered hooks, to which every contributor adds, run in the order added:
 * <ul>
 * <li>{@link #addClientBuilderCustomizer(String, JedisClientBuilderCustomizer)}
 * configures the Jedis cluster client builder (pool, topology refresh period) before the
 * application's own customizer runs;</li>
 * <li>{@link #addClientBuilderFinisher(String, JedisClientBuilderCustomizer)} sees the
 * builder after the application's own customizer ran, to step back from a setting the
 * application made itself or to contribute what needs the builder's final settings;</li>
 * <li>{@link #addClientStartedListener(String, Consumer)} sees the
 * {@link RedisClusterClient} once the factory has started, for example to pre-warm its
 * pools or bind meters.</li>
 * </ul>
 * </li>
 * </ul>
 * Everything else behaves exactly as in {@link JedisConnectionFactory}.
 */
public class SlotwiseJedisConnectionFactory extends JedisConnectionFactory {

	private static final Log logger = LogFactory.getLog(SlotwiseJedisConnectionFactory.class);

	private final ListHook<JedisClientBuilderCustomizer> clientBuilderCustomizers;

	private final ListHook<JedisClientBuilderCustomizer> clientBuilderFinishers;

	private final ExclusiveHook<Function<UnifiedJedis, ClusterTopologyProvider>> topologyProvider = new ExclusiveHook<>(
			"the topology provider of the Jedis connection factory");

	private final ExclusiveHook<ClusterConnectionCreator> clusterConnections = new ExclusiveHook<>(
			"the cluster connections of the Jedis connection factory");

	private final ListHook<Consumer<RedisClusterClient>> clientStartedListeners = new ListHook<>();

	private @Nullable AsyncTaskExecutor executor;

	private volatile @Nullable ClusterTopologyProvider runningTopologyProvider;

	private volatile @Nullable RedisClusterClient clusterClient;

	private volatile @Nullable ClusterCommandExecutor commandExecutor;

	/**
	 * Creates a factory for a cluster.
	 * @param clusterConfiguration the cluster nodes and redirect limit
	 * @param clientConfiguration the client settings (pool, timeouts, SSL, customizers)
	 */
	public SlotwiseJedisConnectionFactory(RedisClusterConfiguration clusterConfiguration,
			JedisClientConfiguration clientConfiguration) {
		this(clusterConfiguration, clientConfiguration, new ListHook<>(), new ListHook<>());
	}

	private SlotwiseJedisConnectionFactory(RedisClusterConfiguration clusterConfiguration,
			JedisClientConfiguration clientConfiguration,
			ListHook<JedisClientBuilderCustomizer> clientBuilderCustomizers,
			ListHook<JedisClientBuilderCustomizer> clientBuilderFinishers) {
		super(clusterConfiguration,
				new ComposedJedisClientConfiguration(clientConfiguration,
						(builder) -> clientBuilderCustomizers.forEach((customizer) -> customizer.customize(builder)),
						(builder) -> clientBuilderFinishers.forEach((finisher) -> finisher.customize(builder))));
		this.clientBuilderCustomizers = clientBuilderCustomizers;
		this.clientBuilderFinishers = clientBuilderFinishers;
	}

	/**
	 * Adds a customizer of the Jedis cluster client builder. Added customizers run in the
	 * order added, after Spring Data Redis has configured the builder and before the
	 * application's own {@link JedisClientBuilderCustomizer} from its
	 * {@link JedisClientConfiguration}, which therefore wins.
	 * @param contributor the name of who adds it, for messages
	 * @param customizer the customizer
	 */
	public void addClientBuilderCustomizer(String contributor, JedisClientBuilderCustomizer customizer) {
		this.clientBuilderCustomizers.add(contributor, "customizer", customizer);
	}

	/**
	 * Adds a finisher of the Jedis cluster client builder: finishers run in the order
	 * added, after the application's own {@link JedisClientBuilderCustomizer}, just
	 * before the client is built. They are for a contribution made by
	 * {@link #addClientBuilderCustomizer(String, JedisClientBuilderCustomizer)} that must
	 * step back when the application configured the same setting itself, and for one that
	 * needs the builder's final settings (a connection provider created from them, where
	 * the application set none): they may undo or complete their own contribution, never
	 * change the application's settings.
	 * @param contributor the name of who adds it, for messages
	 * @param finisher the finisher
	 */
	public void addClientBuilderFinisher(String contributor, JedisClientBuilderCustomizer finisher) {
		this.clientBuilderFinishers.add(contributor, "finisher", finisher);
	}

	/**
	 * Provides the topology provider in place of Spring Data Redis's. One contributor at
	 * most may.
	 * @param contributor the name of who provides it, for messages
	 * @param topologyProviderFactory creates the provider once the cluster client exists
	 * @throws IllegalStateException when another contributor provides it already
	 */
	public void claimTopologyProvider(String contributor,
			Function<UnifiedJedis, ClusterTopologyProvider> topologyProviderFactory) {
		this.topologyProvider.claim(contributor, "topologyProviderFactory", topologyProviderFactory);
	}

	/**
	 * Provides the cluster connections handed out in place of Spring Data Redis's own,
	 * created over the running factory's client, command executor and topology provider.
	 * One contributor at most may, since one connection cannot be two subclasses.
	 * @param contributor the name of who provides them, for messages
	 * @param creator creates each connection
	 * @throws IllegalStateException when another contributor provides them already
	 */
	public void claimClusterConnections(String contributor, ClusterConnectionCreator creator) {
		this.clusterConnections.claim(contributor, "creator", creator);
	}

	/**
	 * Adds a listener called with the cluster client each time the factory starts, after
	 * those added before.
	 * @param contributor the name of who adds it, for messages
	 * @param listener the listener
	 */
	public void addClientStartedListener(String contributor, Consumer<RedisClusterClient> listener) {
		this.clientStartedListeners.add(contributor, "listener", listener);
	}

	@Override
	public void setExecutor(AsyncTaskExecutor executor) {
		super.setExecutor(executor);
		this.executor = executor;
	}

	/**
	 * Returns the topology provider of the running factory.
	 * @return the provider
	 * @throws IllegalStateException when the factory is not started
	 */
	public ClusterTopologyProvider getRequiredTopologyProvider() {
		ClusterTopologyProvider provider = this.runningTopologyProvider;
		Assert.state(provider != null, "The connection factory is not started");
		return provider;
	}

	/**
	 * Returns the cluster client of the running factory.
	 * @return the client
	 * @throws IllegalStateException when the factory is not started
	 */
	public RedisClusterClient getRequiredClusterClient() {
		RedisClusterClient client = this.clusterClient;
		Assert.state(client != null, "The connection factory is not started");
		return client;
	}

	/**
	 * Returns the executor of commands that span nodes, for connections created by the
	 * {@link #claimClusterConnections(String, ClusterConnectionCreator) cluster
	 * connections contributor} (Spring Data Redis keeps its own private). It runs on the
	 * executor set with {@link #setExecutor(AsyncTaskExecutor)}, if any, and is disposed
	 * when the factory stops.
	 * @return the executor of the running factory
	 * @throws IllegalStateException when the factory is not started
	 */
	public ClusterCommandExecutor getRequiredCommandExecutor() {
		ClusterCommandExecutor executor = this.commandExecutor;
		if (executor == null) {
			synchronized (this) {
				executor = this.commandExecutor;
				if (executor == null) {
					AsyncTaskExecutor taskExecutor = (this.executor != null) ? this.executor
							: new SimpleAsyncTaskExecutor();
					executor = new ClusterCommandExecutor(getRequiredTopologyProvider(),
							new JedisNodeResourceProvider(getRequiredClusterClient()),
							new PassThroughExceptionTranslationStrategy(this::translate), taskExecutor);
					this.commandExecutor = executor;
				}
			}
		}
		return executor;
	}

	private @Nullable DataAccessException translate(Exception ex) {
		return (ex instanceof RuntimeException runtime) ? translateExceptionIfPossible(runtime) : null;
	}

	@Override
	protected ClusterTopologyProvider createTopologyProvider(UnifiedJedis cluster) {
		Function<UnifiedJedis, ClusterTopologyProvider> factory = this.topologyProvider.get();
		ClusterTopologyProvider provider = (factory != null) ? factory.apply(cluster)
				: super.createTopologyProvider(cluster);
		this.runningTopologyProvider = provider;
		return provider;
	}

	@Override
	protected RedisClusterClient createRedisClusterClient(RedisClusterConfiguration configuration) {
		RedisClusterClient client;
		try {
			client = super.createRedisClusterClient(configuration);
		}
		catch (JedisClusterOperationException ex) {
			throw namingRefusals(ex);
		}
		this.clusterClient = client;
		return client;
	}

	/**
	 * Jedis reports seed nodes that all refused the credentials as "Could not initialize
	 * cluster slots cache." and keeps the refusals ({@code WRONGPASS}, {@code NOAUTH},
	 * {@code NOPERM}) only as suppressed exceptions, which start-up failure reports do
	 * not show: name them in the message.
	 */
	private static JedisClusterOperationException namingRefusals(JedisClusterOperationException ex) {
		List<String> refusals = Arrays.stream(ex.getSuppressed())
			.filter((suppressed) -> suppressed instanceof JedisAccessControlException
					|| String.valueOf(suppressed.getMessage()).startsWith("NOAUTH"))
			.map((suppressed) -> String.valueOf(suppressed.getMessage()))
			.distinct()
			.toList();
		if (refusals.isEmpty()) {
			return ex;
		}
		JedisClusterOperationException named = new JedisClusterOperationException(ex.getMessage()
				+ " Authentication failed: the seed nodes refused the credentials (" + String.join("; ", refusals)
				+ "); check spring.data.redis.username and spring.data.redis.password.", ex);
		return named;
	}

	@Override
	public void afterPropertiesSet() {
		if (logger.isDebugEnabled()) {
			logger.debug("Contributions: topology provider from " + this.topologyProvider.contributor()
					+ ", cluster connections from " + this.clusterConnections.contributor()
					+ ", client builder customizers from " + this.clientBuilderCustomizers.contributors()
					+ ", client builder finishers from " + this.clientBuilderFinishers.contributors()
					+ ", client started listeners from " + this.clientStartedListeners.contributors());
		}
		super.afterPropertiesSet();
	}

	@Override
	public void start() {
		boolean wasRunning = isRunning();
		super.start();
		RedisClusterClient client = this.clusterClient;
		if (!wasRunning && client != null) {
			this.clientStartedListeners.forEach((listener) -> listener.accept(client));
		}
	}

	@Override
	public void stop() {
		super.stop();
		disposeCommandExecutor();
		ClusterTopologyProvider provider = this.runningTopologyProvider;
		this.clusterClient = null;
		this.runningTopologyProvider = null;
		// A contributed provider may own a thread (Slotwise's notifies of new masters):
		// it ends with the factory.
		if (provider instanceof AutoCloseable closeable) {
			try {
				closeable.close();
			}
			catch (Exception ex) {
				logger.debug("Could not close the topology provider " + provider, ex);
			}
		}
	}

	private synchronized void disposeCommandExecutor() {
		ClusterCommandExecutor executor = this.commandExecutor;
		this.commandExecutor = null;
		if (executor != null) {
			try {
				executor.destroy();
			}
			catch (Exception ex) {
				// Nothing is left to release: the executor holds no connections of its
				// own.
			}
		}
	}

	/**
	 * Hands out the claimed creator's connection while the factory runs. It is created
	 * here rather than in place of the one {@code super.getClusterConnection()} builds:
	 * every Spring Data Redis connection looks up its logger and builds ten command
	 * groups in its constructor, a cost a template call would otherwise pay twice. Before
	 * start and after stop, Spring Data Redis's own checks and messages apply.
	 */
	@Override
	public RedisClusterConnection getClusterConnection() {
		ClusterConnectionCreator creator = this.clusterConnections.get();
		RedisClusterClient client = this.clusterClient;
		ClusterTopologyProvider provider = this.runningTopologyProvider;
		if (creator == null || client == null || provider == null || !isRunning()) {
			return super.getClusterConnection();
		}
		return creator.create(client, getRequiredCommandExecutor(), provider);
	}

	/**
	 * Creates the cluster connections of a {@link SlotwiseJedisConnectionFactory}.
	 */
	@FunctionalInterface
	public interface ClusterConnectionCreator {

		/**
		 * Creates a cluster connection.
		 * @param client the running factory's cluster client
		 * @param executor runs commands on several nodes (see
		 * {@link SlotwiseJedisConnectionFactory#getRequiredCommandExecutor()})
		 * @param topologyProvider the running factory's topology provider
		 * @return the connection
		 */
		JedisClusterConnection create(RedisClusterClient client, ClusterCommandExecutor executor,
				ClusterTopologyProvider topologyProvider);

	}

}
