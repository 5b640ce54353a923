package dev.slotwise.connection;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import org.jspecify.annotations.Nullable;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.PassThroughExceptionTranslationStrategy;
import org.springframework.data.redis.connection.ClusterCommandExecutor;
import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientBuilderCustomizer;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClusterConnection;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.util.Assert;

/**
 * A {@link JedisConnectionFactory} for Redis Cluster whose topology provider, cluster connections and client
 * life cycle can be extended through hooks, set before {@link #afterPropertiesSet()}:
 * <ul>
 * <li>{@link #setTopologyProviderFactory(Function)} replaces Spring Data Redis's topology provider;</li>
 * <li>{@link #setClusterConnectionPostProcessor(UnaryOperator)} may return a {@link JedisClusterConnection}
 * subclass for every connection handed out;</li>
 * <li>{@link #addClientBuilderCustomizer(JedisClientBuilderCustomizer)} configures the Jedis cluster client
 * builder (pool, topology refresh period) before the application's own customizer runs;</li>
 * <li>{@link #addClientStartedListener(Consumer)} sees the {@link RedisClusterClient} once the factory has
 * started, for example to pre-warm its pools or bind meters.</li>
 * </ul>
 * Everything else behaves exactly as in {@link JedisConnectionFactory}.
 */
public class SlotwiseJedisConnectionFactory extends JedisConnectionFactory {

	private final List<JedisClientBuilderCustomizer> clientBuilderCustomizers;

	private @Nullable Function<UnifiedJedis, ClusterTopologyProvider> topologyProviderFactory;

	private UnaryOperator<JedisClusterConnection> clusterConnectionPostProcessor = UnaryOperator.identity();

	private final List<Consumer<RedisClusterClient>> clientStartedListeners = new ArrayList<>();

	private @Nullable AsyncTaskExecutor executor;

	private volatile @Nullable ClusterTopologyProvider topologyProvider;

	private volatile @Nullable RedisClusterClient clusterClient;

	private volatile @Nullable ClusterCommandExecutor commandExecutor;

	/**
	 * Creates a factory for a cluster.
	 * @param clusterConfiguration the cluster nodes and redirect limit
	 * @param clientConfiguration the client settings (pool, timeouts, SSL, customizers)
	 */
	public SlotwiseJedisConnectionFactory(RedisClusterConfiguration clusterConfiguration,
			JedisClientConfiguration clientConfiguration) {
		this(clusterConfiguration, clientConfiguration, new CopyOnWriteArrayList<>());
	}

	private SlotwiseJedisConnectionFactory(RedisClusterConfiguration clusterConfiguration,
			JedisClientConfiguration clientConfiguration, List<JedisClientBuilderCustomizer> clientBuilderCustomizers) {
		super(clusterConfiguration, new ComposedJedisClientConfiguration(clientConfiguration,
				(builder) -> clientBuilderCustomizers.forEach((customizer) -> customizer.customize(builder))));
		this.clientBuilderCustomizers = clientBuilderCustomizers;
	}

	/**
	 * Adds a customizer of the Jedis cluster client builder. Added customizers run in order, after Spring Data
	 * Redis has configured the builder and before the application's own {@link JedisClientBuilderCustomizer} from
	 * its {@link JedisClientConfiguration}, which therefore wins.
	 * @param customizer the customizer
	 */
	public void addClientBuilderCustomizer(JedisClientBuilderCustomizer customizer) {
		Assert.notNull(customizer, "'customizer' must not be null");
		this.clientBuilderCustomizers.add(customizer);
	}

	/**
	 * Sets the function that creates the topology provider once the cluster client exists; {@code null} keeps
	 * Spring Data Redis's.
	 * @param topologyProviderFactory the factory
	 */
	public void setTopologyProviderFactory(
			@Nullable Function<UnifiedJedis, ClusterTopologyProvider> topologyProviderFactory) {
		this.topologyProviderFactory = topologyProviderFactory;
	}

	/**
	 * Sets the function every cluster connection passes through before it is handed out.
	 * @param postProcessor returns the connection to use, typically a subclass wrapping the same resources
	 */
	public void setClusterConnectionPostProcessor(UnaryOperator<JedisClusterConnection> postProcessor) {
		Assert.notNull(postProcessor, "'postProcessor' must not be null");
		this.clusterConnectionPostProcessor = postProcessor;
	}

	/**
	 * Adds a listener called with the cluster client each time the factory starts.
	 * @param listener the listener
	 */
	public void addClientStartedListener(Consumer<RedisClusterClient> listener) {
		Assert.notNull(listener, "'listener' must not be null");
		this.clientStartedListeners.add(listener);
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
		ClusterTopologyProvider provider = this.topologyProvider;
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
	 * Returns the executor of commands that span nodes, for connections created by a
	 * {@link #setClusterConnectionPostProcessor(UnaryOperator) post-processor} (Spring Data Redis keeps its own
	 * private). It runs on the executor set with {@link #setExecutor(AsyncTaskExecutor)}, if any, and is disposed when
	 * the factory stops.
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
		ClusterTopologyProvider provider = (this.topologyProviderFactory != null)
				? this.topologyProviderFactory.apply(cluster) : super.createTopologyProvider(cluster);
		this.topologyProvider = provider;
		return provider;
	}

	@Override
	protected RedisClusterClient createRedisClusterClient(RedisClusterConfiguration configuration) {
		RedisClusterClient client = super.createRedisClusterClient(configuration);
		this.clusterClient = client;
		return client;
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
		this.clusterClient = null;
		this.topologyProvider = null;
	}

	private synchronized void disposeCommandExecutor() {
		ClusterCommandExecutor executor = this.commandExecutor;
		this.commandExecutor = null;
		if (executor != null) {
			try {
				executor.destroy();
			}
			catch (Exception ex) {
				// Nothing is left to release: the executor holds no connections of its own.
			}
		}
	}

	@Override
	protected JedisClusterConnection postProcessConnection(JedisClusterConnection connection) {
		return this.clusterConnectionPostProcessor.apply(connection);
	}

}
