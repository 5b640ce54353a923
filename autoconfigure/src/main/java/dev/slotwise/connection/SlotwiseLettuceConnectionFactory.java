package dev.slotwise.connection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.DriverInfo;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.resource.ClientResources;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterCommandExecutor;
import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClusterConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnection.PipeliningFlushPolicy;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;
import org.springframework.data.redis.util.RedisClientLibraryInfo;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * A {@link LettuceConnectionFactory} for Redis Cluster whose client, topology provider
 * and cluster connections are extended through named contributions, made before
 * {@link #afterPropertiesSet()}. Two kinds of hooks exist:
 * <ul>
 * <li>exclusive hooks, which one contributor at most may fill; a second claim fails with
 * an {@link IllegalStateException} naming both contributors:
 * <ul>
 * <li>{@link #claimClusterClient(String, ClusterClientCreator)} creates the Lettuce
 * cluster client (for example a {@code RedisClusterClient} subclass) from the URIs and
 * options Spring Data Redis would use;</li>
 * <li>{@link #claimTopologyProvider(String, UnaryOperator)} wraps Spring Data Redis's
 * topology provider once per start;</li>
 * <li>{@link #claimClusterConnections(String, ClusterConnectionCreator)} creates every
 * cluster connection, typically a {@link LettuceClusterConnection} subclass;</li>
 * </ul>
 * </li>
 * <li>an ordered hook, to which every contributor adds, run in the order added:
 * {@link #addStartedListener(String, Consumer)} runs once the factory has started, for
 * example to pre-warm.</li>
 * </ul>
 * A {@link #setReactiveMultiKeyRouter(ReactiveMultiKeyRouter) reactive multi-key router}
 * runs the cross-slot multi-key calls of the reactive connections: the provider of
 * reactive connections is decorated (through the protected
 * {@link #doCreateConnectionProvider(AbstractRedisClient, RedisCodec)}), not the reactive
 * connections, whose types Spring Data Redis keeps package-private. Everything else
 * behaves exactly as in {@link LettuceConnectionFactory}.
 */
public class SlotwiseLettuceConnectionFactory extends LettuceConnectionFactory {

	private static final Log logger = LogFactory.getLog(SlotwiseLettuceConnectionFactory.class);

	private final ExclusiveHook<ClusterClientCreator> clusterClient = new ExclusiveHook<>(
			"the cluster client of the Lettuce connection factory");

	private final ExclusiveHook<UnaryOperator<ClusterTopologyProvider>> topologyProvider = new ExclusiveHook<>(
			"the topology provider of the Lettuce connection factory");

	private final ExclusiveHook<ClusterConnectionCreator> clusterConnections = new ExclusiveHook<>(
			"the cluster connections of the Lettuce connection factory");

	private final ListHook<Consumer<SlotwiseLettuceConnectionFactory>> startedListeners = new ListHook<>();

	private final ListHook<Consumer<SlotwiseLettuceConnectionFactory>> stoppingListeners = new ListHook<>();

	private PipeliningFlushPolicy pipeliningFlushPolicy = PipeliningFlushPolicy.flushEachCommand();

	private volatile @Nullable DecoratedProvider decoratedTopologyProvider;

	private volatile @Nullable LettuceConnectionProvider connectionProvider;

	private volatile @Nullable AbstractRedisClient connectionProviderForClient;

	private volatile @Nullable ReactiveMultiKeyRouter reactiveMultiKeyRouter;

	private volatile @Nullable ReactiveKeyspace reactiveKeyspace;

	private volatile @Nullable ReactiveNearCache reactiveNearCache;

	/**
	 * Whether the running factory's reactive connections route; read by
	 * {@link #isReactiveRoutingActive()}.
	 */
	private volatile boolean reactiveRouting;

	/**
	 * Why the running factory's reactive connections do not route although a router is
	 * set, or {@code null}.
	 */
	private volatile @Nullable String reactiveRoutingProblem;

	private final Object ownConnectionLock = new Object();

	/**
	 * Opens the factory's own cluster connection: Spring Data Redis's unpooled provider
	 * of the running client.
	 */
	private @Nullable LettuceConnectionProvider ownConnectionProvider;

	private @Nullable StatefulRedisClusterConnection<byte[], byte[]> ownConnection;

	/**
	 * Creates a factory for a cluster.
	 * @param clusterConfiguration the cluster nodes and redirect limit
	 * @param clientConfiguration the client settings
	 */
	public SlotwiseLettuceConnectionFactory(RedisClusterConfiguration clusterConfiguration,
			LettuceClientConfiguration clientConfiguration) {
		super(clusterConfiguration, clientConfiguration);
	}

	/**
	 * Provides the Lettuce cluster client, for example a {@code RedisClusterClient}
	 * subclass, in place of Spring Data Redis's. The creator receives the seed URIs and
	 * options exactly as Spring Data Redis would build them. One contributor at most may.
	 * @param contributor the name of who provides it, for messages
	 * @param creator the creator
	 * @throws IllegalStateException when another contributor provides it already
	 */
	public void claimClusterClient(String contributor, ClusterClientCreator creator) {
		this.clusterClient.claim(contributor, "creator", creator);
	}

	/**
	 * Provides the topology provider cluster connections use, as a wrapper of Spring Data
	 * Redis's. It is applied once per started client: Spring Data Redis creates a new,
	 * equivalent provider for every cluster connection, and the first one wrapped serves
	 * them all. One contributor at most may, since other contributors rely on the type of
	 * the provider they are given.
	 * @param contributor the name of who provides it, for messages
	 * @param decorator returns the provider cluster connections use
	 * @throws IllegalStateException when another contributor provides it already
	 */
	public void claimTopologyProvider(String contributor, UnaryOperator<ClusterTopologyProvider> decorator) {
		this.topologyProvider.claim(contributor, "decorator", decorator);
	}

	/**
	 * Provides the cluster connections handed out in place of Spring Data Redis's own.
	 * One contributor at most may, since one connection cannot be two subclasses.
	 * @param contributor the name of who provides them, for messages
	 * @param creator the creator
	 * @throws IllegalStateException when another contributor provides them already
	 */
	public void claimClusterConnections(String contributor, ClusterConnectionCreator creator) {
		this.clusterConnections.claim(contributor, "creator", creator);
	}

	/**
	 * Sets what runs the cross-slot multi-key calls of the reactive cluster connections;
	 * {@code null} leaves them to Spring Data Redis and Lettuce. Takes effect when the
	 * factory next starts.
	 * @param router the router
	 */
	public void setReactiveMultiKeyRouter(@Nullable ReactiveMultiKeyRouter router) {
		this.reactiveMultiKeyRouter = router;
	}

	/**
	 * Sets what runs the {@code SCAN} and {@code KEYS} calls of the reactive cluster
	 * connections (and so {@code ReactiveRedisTemplate.scan} and {@code keys} and the
	 * reactive cache clear); {@code null} leaves them to Spring Data Redis and Lettuce.
	 * Routed through the same decoration as the
	 * {@link #setReactiveMultiKeyRouter(ReactiveMultiKeyRouter) multi-key router}. Takes
	 * effect when the factory next starts.
	 * @param keyspace the cluster-wide key walks
	 */
	public void setReactiveKeyspace(@Nullable ReactiveKeyspace keyspace) {
		this.reactiveKeyspace = keyspace;
	}

	/**
	 * Sets the near cache of the reactive cluster connections' reads; {@code null} for
	 * none. Routed through the same decoration as the
	 * {@link #setReactiveMultiKeyRouter(ReactiveMultiKeyRouter) multi-key router}. Takes
	 * effect when the factory next starts.
	 * @param nearCache the near cache
	 */
	public void setReactiveNearCache(@Nullable ReactiveNearCache nearCache) {
		this.reactiveNearCache = nearCache;
	}

	/**
	 * Tells whether the running factory's reactive cluster connections send cross-slot
	 * multi-key calls to the {@link #setReactiveMultiKeyRouter(ReactiveMultiKeyRouter)
	 * router}.
	 * @return whether reactive routing is active
	 */
	public boolean isReactiveRoutingActive() {
		return this.reactiveRouting && isRunning();
	}

	/**
	 * Tells why the running factory's reactive cluster connections do not route although
	 * a {@link #setReactiveMultiKeyRouter(ReactiveMultiKeyRouter) router} is set.
	 * @return the missing member or extension point, or {@code null} when they route or
	 * no router is set
	 */
	public @Nullable String getReactiveRoutingProblem() {
		return this.reactiveRoutingProblem;
	}

	@Override
	public void setPipeliningFlushPolicy(PipeliningFlushPolicy pipeliningFlushPolicy) {
		// Kept here because Spring Data Redis has no getter, and created connections must
		// carry it.
		super.setPipeliningFlushPolicy(pipeliningFlushPolicy);
		this.pipeliningFlushPolicy = pipeliningFlushPolicy;
	}

	/**
	 * Adds a listener called each time the factory starts, after those added before.
	 * @param contributor the name of who adds it, for messages
	 * @param listener the listener
	 */
	public void addStartedListener(String contributor, Consumer<SlotwiseLettuceConnectionFactory> listener) {
		this.startedListeners.add(contributor, "listener", listener);
	}

	/**
	 * Adds a listener called each time the factory stops, before its client shuts down,
	 * for example to close connections a contributor opened through the client.
	 * @param contributor the name of who adds it, for messages
	 * @param listener the listener
	 */
	public void addStoppingListener(String contributor, Consumer<SlotwiseLettuceConnectionFactory> listener) {
		this.stoppingListeners.add(contributor, "listener", listener);
	}

	/**
	 * Returns the shared native cluster connection, opening it if needed, for pre-warm
	 * and meters.
	 * @return the shared connection, or {@code null} when connection sharing is off
	 */
	public @Nullable StatefulRedisClusterConnection<byte[], byte[]> getOrCreateSharedClusterConnection() {
		return getSharedClusterConnection();
	}

	/**
	 * Returns a native cluster connection for work that runs beside the application's
	 * connections, such as Slotwise's reactive multi-key calls: the shared connection
	 * when connection sharing is on; otherwise one connection the factory opens on first
	 * use, with the settings of its dedicated connections (without taking one from their
	 * pool), and closes when it stops.
	 * @return the connection
	 * @throws IllegalStateException when the factory is not running
	 */
	public StatefulRedisClusterConnection<byte[], byte[]> getOrCreateNativeClusterConnection() {
		StatefulRedisClusterConnection<byte[], byte[]> shared = getSharedClusterConnection();
		if (shared != null) {
			return shared;
		}
		synchronized (this.ownConnectionLock) {
			StatefulRedisClusterConnection<byte[], byte[]> connection = this.ownConnection;
			if (connection == null) {
				LettuceConnectionProvider provider = this.ownConnectionProvider;
				Assert.state(isRunning() && provider != null, "The connection factory is not running");
				connection = openClusterConnection(provider);
				this.ownConnection = connection;
			}
			return connection;
		}
	}

	@SuppressWarnings("unchecked")
	private static StatefulRedisClusterConnection<byte[], byte[]> openClusterConnection(
			LettuceConnectionProvider provider) {
		return provider.getConnection(StatefulRedisClusterConnection.class);
	}

	/**
	 * Returns the provider of the running factory's dedicated cluster connections:
	 * Lettuce's pool when pooling is on. Spring Data Redis hands it only to the cluster
	 * connections it creates, so one is created (and closed at once, which opens nothing
	 * while the native connection is shared) when none was since the factory started.
	 * @return the provider
	 */
	public LettuceConnectionProvider getRequiredConnectionProvider() {
		LettuceConnectionProvider provider = this.connectionProvider;
		if (provider == null || this.connectionProviderForClient != getNativeClient()) {
			getClusterConnection().close();
			provider = this.connectionProvider;
		}
		Assert.state(provider != null, "The factory created no cluster connection");
		return provider;
	}

	/**
	 * Returns the topology provider cluster connections of the running factory use
	 * (decorated), available once a cluster connection was created.
	 * @return the provider
	 * @throws IllegalStateException when no cluster connection was created since the
	 * factory started
	 */
	public ClusterTopologyProvider getRequiredTopologyProvider() {
		DecoratedProvider decorated = this.decoratedTopologyProvider;
		Assert.state(decorated != null && isRunning() && decorated.client() == getNativeClient(),
				"No cluster connection was created since the factory started");
		return decorated.provider();
	}

	@Override
	protected AbstractRedisClient createClient() {
		ClusterClientCreator creator = this.clusterClient.get();
		RedisClusterConfiguration cluster = getClusterConfiguration();
		return (creator != null && cluster != null) ? createClusterClient(creator, cluster) : super.createClient();
	}

	// Mirrors Spring Data Redis's private createClusterClient(): no supported API hands
	// out the URIs and options it builds (RedisClusterClient keeps its seed URIs in a
	// protected getter, its options package-private). Fenced by
	// SettingsParityIntegrationTests, which compares this client's options and seed URIs,
	// field by field, with those of the client Spring Data Redis builds for the same
	// configuration: a change in Spring Data's building fails it.
	private RedisClusterClient createClusterClient(ClusterClientCreator creator, RedisClusterConfiguration cluster) {
		LettuceClientConfiguration configuration = getClientConfiguration();
		List<RedisURI> initialUris = new ArrayList<>();
		for (RedisNode node : cluster.getClusterNodes()) {
			initialUris.add(createRedisUri(cluster, configuration, node.getRequiredHost(), node.getRequiredPort()));
		}
		ClientOptions clientOptions = configuration.getClientOptions().orElse(null);
		ClusterClientOptions options = (clientOptions instanceof ClusterClientOptions clusterOptions) ? clusterOptions
				: (clientOptions != null) ? ClusterClientOptions.builder(clientOptions).build()
						: ClusterClientOptions.create();
		if (cluster.getMaxRedirects() != null) {
			options = options.mutate().maxRedirects(cluster.getMaxRedirects()).build();
		}
		return creator.create(configuration.getClientResources().orElse(null), initialUris, options);
	}

	private RedisURI createRedisUri(RedisClusterConfiguration cluster, LettuceClientConfiguration configuration,
			String host, int port) {
		RedisURI.Builder builder = RedisURI.Builder.redis(host, port);
		String username = cluster.getUsername();
		RedisPassword password = cluster.getPassword();
		if (StringUtils.hasText(username)) {
			builder.withAuthentication(username, new String(password.toOptional().orElse(new char[0])));
		}
		else {
			password.toOptional().ifPresent(builder::withPassword);
		}
		configuration.getRedisCredentialsProviderFactory()
			.ifPresent((factory) -> builder.withAuthentication(factory.createCredentialsProvider(cluster)));
		configuration.getClientName().ifPresent(builder::withClientName);
		builder.withDatabase(getDatabase());
		builder.withSsl(configuration.isUseSsl());
		builder.withVerifyPeer(configuration.getVerifyMode());
		builder.withStartTls(configuration.isStartTls());
		builder.withTimeout(configuration.getCommandTimeout());
		builder.withDriverInfo(DriverInfo.builder()
			.addUpstreamDriver(RedisClientLibraryInfo.FRAMEWORK_NAME, RedisClientLibraryInfo.getVersion())
			.build());
		return builder.build();
	}

	@Override
	public void afterPropertiesSet() {
		if (logger.isDebugEnabled()) {
			logger.debug("Contributions: cluster client from " + this.clusterClient.contributor()
					+ ", topology provider from " + this.topologyProvider.contributor() + ", cluster connections from "
					+ this.clusterConnections.contributor() + ", started listeners from "
					+ this.startedListeners.contributors());
		}
		super.afterPropertiesSet();
	}

	@Override
	protected LettuceConnectionProvider doCreateConnectionProvider(AbstractRedisClient client, RedisCodec<?, ?> codec) {
		LettuceConnectionProvider provider = super.doCreateConnectionProvider(client, codec);
		// Spring Data Redis creates one per codec and start, then wraps it in its pool:
		// the unpooled one opens the factory's own long-lived connection without holding
		// one of the pool's.
		if (codec instanceof ByteArrayCodec) {
			synchronized (this.ownConnectionLock) {
				this.ownConnectionProvider = provider;
			}
			return provider;
		}
		ReactiveMultiKeyRouter router = this.reactiveMultiKeyRouter;
		ReactiveKeyspace keyspace = this.reactiveKeyspace;
		ReactiveNearCache nearCache = this.reactiveNearCache;
		if ((router != null || keyspace != null || nearCache != null) && client instanceof RedisClusterClient
				&& ReactiveRouting.MISSING_MEMBER == null && ReactiveRouting.isByteBufferCodec(codec)) {
			this.reactiveRouting = true;
			return ReactiveRouting.provider(provider, router, keyspace, nearCache);
		}
		return provider;
	}

	@Override
	public void stop() {
		this.stoppingListeners.forEach((listener) -> listener.accept(this));
		// Not left to the client's shutdown (which closes it too): forgetting it is what
		// makes a restarted factory open a new one instead of handing out a closed one.
		StatefulRedisClusterConnection<byte[], byte[]> connection;
		synchronized (this.ownConnectionLock) {
			connection = this.ownConnection;
			this.ownConnection = null;
			this.ownConnectionProvider = null;
		}
		if (connection != null) {
			connection.close();
		}
		super.stop();
	}

	@Override
	public void start() {
		boolean wasRunning = isRunning();
		if (!wasRunning) {
			this.reactiveRouting = false;
			this.reactiveRoutingProblem = null;
		}
		super.start();
		if (!wasRunning && isRunning() && (this.reactiveMultiKeyRouter != null || this.reactiveKeyspace != null
				|| this.reactiveNearCache != null) && !this.reactiveRouting) {
			// Spring Data Redis creates its reactive provider in start(); a version that
			// stops doing so through doCreateConnectionProvider, or a Lettuce without the
			// commands routed, leaves the calls to Lettuce.
			String problem = (ReactiveRouting.MISSING_MEMBER != null) ? ReactiveRouting.MISSING_MEMBER + " is missing"
					: "LettuceConnectionFactory created no reactive connection provider through "
							+ "doCreateConnectionProvider(AbstractRedisClient, RedisCodec)";
			this.reactiveRoutingProblem = problem;
			logger.warn("Cross-slot reactive multi-key calls run as Spring Data Redis runs them (SCAN and KEYS too): "
					+ problem);
		}
		if (!wasRunning && isRunning()) {
			this.startedListeners.forEach((listener) -> listener.accept(this));
		}
	}

	@Override
	protected LettuceClusterConnection doCreateLettuceClusterConnection(
			@Nullable StatefulRedisClusterConnection<byte[], byte[]> sharedConnection,
			LettuceConnectionProvider connectionProvider, ClusterTopologyProvider topologyProvider,
			ClusterCommandExecutor clusterCommandExecutor, Duration commandTimeout) {
		ClusterTopologyProvider decorated = decorate(topologyProvider);
		this.connectionProvider = connectionProvider;
		this.connectionProviderForClient = getNativeClient();
		ClusterConnectionCreator creator = this.clusterConnections.get();
		if (creator == null) {
			return super.doCreateLettuceClusterConnection(sharedConnection, connectionProvider, decorated,
					clusterCommandExecutor, commandTimeout);
		}
		LettuceClusterConnection connection = creator.create(sharedConnection, connectionProvider, decorated,
				clusterCommandExecutor, commandTimeout);
		connection.setPipeliningFlushPolicy(this.pipeliningFlushPolicy);
		return connection;
	}

	private ClusterTopologyProvider decorate(ClusterTopologyProvider provider) {
		// Spring Data Redis passes a new provider per connection; decorating each would
		// throw away any cache the decorator keeps, so decorate once per client. Read
		// without the lock first: this runs for every connection handed out.
		AbstractRedisClient client = getNativeClient();
		DecoratedProvider decorated = this.decoratedTopologyProvider;
		if (decorated != null && decorated.client() == client) {
			return decorated.provider();
		}
		return decorateOnce(client, provider);
	}

	private synchronized ClusterTopologyProvider decorateOnce(AbstractRedisClient client,
			ClusterTopologyProvider provider) {
		DecoratedProvider decorated = this.decoratedTopologyProvider;
		if (decorated == null || decorated.client() != client) {
			UnaryOperator<ClusterTopologyProvider> decorator = this.topologyProvider.get();
			decorated = new DecoratedProvider(client, (decorator != null) ? decorator.apply(provider) : provider);
			this.decoratedTopologyProvider = decorated;
		}
		return decorated.provider();
	}

	/**
	 * The topology provider of the cluster connections, decorated once for the client it
	 * was decorated for: one volatile field, so that a reader never pairs a provider with
	 * another start's client.
	 */
	private record DecoratedProvider(AbstractRedisClient client, ClusterTopologyProvider provider) {
	}

	/**
	 * Creates the Lettuce cluster client of a {@link SlotwiseLettuceConnectionFactory}.
	 */
	@FunctionalInterface
	public interface ClusterClientCreator {

		/**
		 * Creates a cluster client and applies the options to it.
		 * @param resources the client resources from the client configuration, or
		 * {@code null} when the client must create (and own) its own
		 * @param initialUris the seed nodes with credentials, client name, SSL, timeout
		 * and database applied
		 * @param options the cluster client options as Spring Data Redis resolves them,
		 * including max redirects
		 * @return the client, not yet connected
		 */
		RedisClusterClient create(@Nullable ClientResources resources, List<RedisURI> initialUris,
				ClusterClientOptions options);

	}

	/**
	 * Creates the cluster connections of a {@link SlotwiseLettuceConnectionFactory}.
	 */
	@FunctionalInterface
	public interface ClusterConnectionCreator {

		/**
		 * Creates a cluster connection.
		 * @param sharedConnection the shared native connection, if sharing is on
		 * @param connectionProvider provides dedicated connections
		 * @param topologyProvider the (decorated) topology provider
		 * @param clusterCommandExecutor runs commands on several nodes
		 * @param commandTimeout the command timeout
		 * @return the connection
		 */
		LettuceClusterConnection create(@Nullable StatefulRedisClusterConnection<byte[], byte[]> sharedConnection,
				LettuceConnectionProvider connectionProvider, ClusterTopologyProvider topologyProvider,
				ClusterCommandExecutor clusterCommandExecutor, Duration commandTimeout);

	}

}
