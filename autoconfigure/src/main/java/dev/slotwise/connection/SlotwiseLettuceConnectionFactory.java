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
import io.lettuce.core.resource.ClientResources;
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
 * A {@link LettuceConnectionFactory} for Redis Cluster whose client, topology provider and cluster connections can
 * be extended through hooks, set before {@link #afterPropertiesSet()}:
 * <ul>
 * <li>{@link #setClusterClientCreator(ClusterClientCreator)} creates the Lettuce cluster client (for example a
 * {@code RedisClusterClient} subclass) from the URIs and options Spring Data Redis would use;</li>
 * <li>{@link #setTopologyProviderDecorator(UnaryOperator)} wraps Spring Data Redis's topology provider once per
 * start;</li>
 * <li>{@link #setClusterConnectionCreator(ClusterConnectionCreator)} creates every cluster connection, typically
 * a {@link LettuceClusterConnection} subclass;</li>
 * <li>{@link #addStartedListener(Consumer)} runs once the factory has started, for example to pre-warm.</li>
 * </ul>
 * Everything else behaves exactly as in {@link LettuceConnectionFactory}.
 */
public class SlotwiseLettuceConnectionFactory extends LettuceConnectionFactory {

	private UnaryOperator<ClusterTopologyProvider> topologyProviderDecorator = UnaryOperator.identity();

	private @Nullable ClusterConnectionCreator clusterConnectionCreator;

	private PipeliningFlushPolicy pipeliningFlushPolicy = PipeliningFlushPolicy.flushEachCommand();

	private final List<Consumer<SlotwiseLettuceConnectionFactory>> startedListeners = new ArrayList<>();

	private @Nullable ClusterClientCreator clusterClientCreator;

	private @Nullable AbstractRedisClient decoratedForClient;

	private volatile @Nullable ClusterTopologyProvider decoratedTopologyProvider;

	private volatile @Nullable LettuceConnectionProvider connectionProvider;

	private volatile @Nullable AbstractRedisClient connectionProviderForClient;

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
	 * Sets what creates the Lettuce cluster client, for example a {@code RedisClusterClient} subclass; {@code null}
	 * lets Spring Data Redis create its own. The creator receives the seed URIs and options exactly as Spring Data
	 * Redis would build them.
	 * @param creator the creator
	 */
	public void setClusterClientCreator(@Nullable ClusterClientCreator creator) {
		this.clusterClientCreator = creator;
	}

	/**
	 * Sets the function that wraps Spring Data Redis's topology provider. It is applied once per started client:
	 * Spring Data Redis creates a new, equivalent provider for every cluster connection, and the first one wrapped
	 * serves them all.
	 * @param decorator returns the provider cluster connections use
	 */
	public void setTopologyProviderDecorator(UnaryOperator<ClusterTopologyProvider> decorator) {
		Assert.notNull(decorator, "'decorator' must not be null");
		this.topologyProviderDecorator = decorator;
	}

	/**
	 * Sets what creates cluster connections; {@code null} creates Spring Data Redis's own.
	 * @param creator the creator
	 */
	public void setClusterConnectionCreator(@Nullable ClusterConnectionCreator creator) {
		this.clusterConnectionCreator = creator;
	}

	@Override
	public void setPipeliningFlushPolicy(PipeliningFlushPolicy pipeliningFlushPolicy) {
		// Kept here because Spring Data Redis has no getter, and created connections must carry it.
		super.setPipeliningFlushPolicy(pipeliningFlushPolicy);
		this.pipeliningFlushPolicy = pipeliningFlushPolicy;
	}

	/**
	 * Adds a listener called each time the factory starts.
	 * @param listener the listener
	 */
	public void addStartedListener(Consumer<SlotwiseLettuceConnectionFactory> listener) {
		Assert.notNull(listener, "'listener' must not be null");
		this.startedListeners.add(listener);
	}

	/**
	 * Returns the shared native cluster connection, opening it if needed, for pre-warm and meters.
	 * @return the shared connection, or {@code null} when connection sharing is off
	 */
	public @Nullable StatefulRedisClusterConnection<byte[], byte[]> getOrCreateSharedClusterConnection() {
		return getSharedClusterConnection();
	}

	/**
	 * Returns the provider of the running factory's dedicated cluster connections: Lettuce's pool when pooling is on.
	 * Spring Data Redis hands it only to the cluster connections it creates, so one is created (and closed at once,
	 * which opens nothing while the native connection is shared) when none was since the factory started.
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
	 * Returns the topology provider cluster connections of the running factory use (decorated), available once a
	 * cluster connection was created.
	 * @return the provider
	 * @throws IllegalStateException when no cluster connection was created since the factory started
	 */
	public ClusterTopologyProvider getRequiredTopologyProvider() {
		ClusterTopologyProvider provider = this.decoratedTopologyProvider;
		Assert.state(provider != null && isRunning() && this.decoratedForClient == getNativeClient(),
				"No cluster connection was created since the factory started");
		return provider;
	}

	@Override
	protected AbstractRedisClient createClient() {
		ClusterClientCreator creator = this.clusterClientCreator;
		RedisClusterConfiguration cluster = getClusterConfiguration();
		return (creator != null && cluster != null) ? createClusterClient(creator, cluster) : super.createClient();
	}

	// Mirrors Spring Data Redis's private createClusterClient(), whose URIs and options we cannot reach.
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
	public void start() {
		boolean wasRunning = isRunning();
		super.start();
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
		if (this.clusterConnectionCreator == null) {
			return super.doCreateLettuceClusterConnection(sharedConnection, connectionProvider, decorated,
					clusterCommandExecutor, commandTimeout);
		}
		LettuceClusterConnection connection = this.clusterConnectionCreator.create(sharedConnection, connectionProvider,
				decorated, clusterCommandExecutor, commandTimeout);
		connection.setPipeliningFlushPolicy(this.pipeliningFlushPolicy);
		return connection;
	}

	private synchronized ClusterTopologyProvider decorate(ClusterTopologyProvider provider) {
		// Spring Data Redis passes a new provider per connection; decorating each would throw away any cache the
		// decorator keeps, so decorate once per client.
		AbstractRedisClient client = getNativeClient();
		ClusterTopologyProvider decorated = this.decoratedTopologyProvider;
		if (decorated == null || client != this.decoratedForClient) {
			decorated = this.topologyProviderDecorator.apply(provider);
			this.decoratedForClient = client;
			this.decoratedTopologyProvider = decorated;
		}
		return decorated;
	}

	/**
	 * Creates the Lettuce cluster client of a {@link SlotwiseLettuceConnectionFactory}.
	 */
	@FunctionalInterface
	public interface ClusterClientCreator {

		/**
		 * Creates a cluster client and applies the options to it.
		 * @param resources the client resources from the client configuration, or {@code null} when the client must
		 * create (and own) its own
		 * @param initialUris the seed nodes with credentials, client name, SSL, timeout and database applied
		 * @param options the cluster client options as Spring Data Redis resolves them, including max redirects
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
