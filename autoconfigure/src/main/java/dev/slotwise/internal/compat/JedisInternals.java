package dev.slotwise.internal.compat;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.builders.AbstractClientBuilder;
import redis.clients.jedis.builders.ClusterClientBuilder;
import redis.clients.jedis.csc.Cache;
import redis.clients.jedis.csc.CacheConfig;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.providers.ConnectionProvider;

/**
 * The one place Slotwise reaches into Jedis: the cluster client's
 * {@link ClusterConnectionProvider}, which Jedis keeps in {@code UnifiedJedis}'s
 * protected {@code provider} field. Its public methods are what Jedis itself uses to
 * renew its slot cache ({@link ClusterConnectionProvider#renewSlotCache()}: the seed
 * nodes first, over new connections, so that their names are resolved again) and to set
 * up the pool of a node ({@link ClusterConnectionProvider#getConnection(HostAndPort)}, as
 * it does for a node its slot table or a redirect names). Jedis has no public way to
 * either: its public trigger is a keyed command that meets a {@code MOVED}.
 * <p>
 * <p>
 * It also reads the retry settings of a cluster client builder
 * ({@link #retrySettings(ClusterClientBuilder)}), which Jedis keeps in
 * {@code ClusterClientBuilder}'s private {@code maxAttempts} and
 * {@code maxTotalRetriesDuration} fields with setters only, so that a Slotwise default
 * can tell whether the application set them itself.
 * <p>
 * It replaces the connection provider a cluster client builder would create by one that
 * paces the slot cache renewals Jedis starts after connection failures
 * ({@link #paceRenewals(ClusterClientBuilder, Duration)}): to create the same provider it
 * reads {@code ClusterClientBuilder}'s private {@code nodes} and
 * {@code topologyRefreshPeriod} and {@code AbstractClientBuilder}'s protected
 * {@code clientConfig}, {@code poolConfig}, {@code cache}, {@code cacheConfig} and
 * {@code connectionProvider}, which Jedis's builder passes to its own provider.
 * <p>
 * The fields are looked up once, when this class loads; {@link #slotCache()},
 * {@link #retrySettingsAccess()} and {@link #renewalPacing()} say whether they were
 * found. When they were not (a Jedis that renamed them), callers fall back as each method
 * says, and start-up logs it once.
 */
public final class JedisInternals {

	private static final Log logger = LogFactory.getLog(JedisInternals.class);

	/** What {@link #slotCache()} relies on. */
	static final String PROVIDER_FIELD = "redis.clients.jedis.UnifiedJedis.provider";

	private static final @Nullable Field PROVIDER;

	private static final @Nullable String PROVIDER_PROBLEM;

	/** What {@link #retrySettings(ClusterClientBuilder)} relies on. */
	static final String RETRY_FIELDS = "redis.clients.jedis.builders.ClusterClientBuilder.maxAttempts and "
			+ "maxTotalRetriesDuration";

	private static final @Nullable Field MAX_ATTEMPTS;

	private static final @Nullable Field MAX_TOTAL_RETRIES_DURATION;

	private static final @Nullable String RETRY_PROBLEM;

	static {
		Field attempts = null;
		Field duration = null;
		String problem = null;
		try {
			attempts = ClusterClientBuilder.class.getDeclaredField("maxAttempts");
			duration = ClusterClientBuilder.class.getDeclaredField("maxTotalRetriesDuration");
			if (attempts.getType() != int.class || duration.getType() != Duration.class) {
				problem = "the fields " + RETRY_FIELDS + " are a " + attempts.getType().getName() + " and a "
						+ duration.getType().getName() + ", not an int and a Duration";
			}
			else {
				attempts.setAccessible(true);
				duration.setAccessible(true);
			}
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			problem = "cannot read " + RETRY_FIELDS + ": " + ex;
		}
		MAX_ATTEMPTS = (problem != null) ? null : attempts;
		MAX_TOTAL_RETRIES_DURATION = (problem != null) ? null : duration;
		RETRY_PROBLEM = problem;
	}

	/** What {@link #paceRenewals(ClusterClientBuilder, Duration)} relies on. */
	static final String PROVIDER_SETTINGS_FIELDS = "redis.clients.jedis.builders.ClusterClientBuilder.nodes and "
			+ "topologyRefreshPeriod, AbstractClientBuilder.clientConfig, poolConfig, cache, cacheConfig and "
			+ "connectionProvider";

	private static final @Nullable Map<String, Field> PROVIDER_SETTINGS;

	private static final @Nullable String PROVIDER_SETTINGS_PROBLEM;

	static {
		Map<String, Field> fields = new HashMap<>();
		String problem = null;
		try {
			for (String name : List.of("nodes", "topologyRefreshPeriod")) {
				fields.put(name, ClusterClientBuilder.class.getDeclaredField(name));
			}
			for (String name : List.of("clientConfig", "poolConfig", "cache", "cacheConfig", "connectionProvider")) {
				fields.put(name, AbstractClientBuilder.class.getDeclaredField(name));
			}
			Map<String, Class<?>> types = Map.of("nodes", Set.class, "topologyRefreshPeriod", Duration.class,
					"clientConfig", JedisClientConfig.class, "poolConfig", GenericObjectPoolConfig.class, "cache",
					Cache.class, "cacheConfig", CacheConfig.class, "connectionProvider", ConnectionProvider.class);
			for (Map.Entry<String, Class<?>> type : types.entrySet()) {
				Field field = fields.get(type.getKey());
				if (field.getType() != type.getValue()) {
					problem = "the field " + field.getDeclaringClass().getName() + "." + field.getName() + " is a "
							+ field.getType().getName() + ", not a " + type.getValue().getName();
				}
			}
			if (problem == null) {
				fields.values().forEach((field) -> field.setAccessible(true));
			}
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			problem = "cannot read " + PROVIDER_SETTINGS_FIELDS + ": " + ex;
		}
		PROVIDER_SETTINGS = (problem != null) ? null : Map.copyOf(fields);
		PROVIDER_SETTINGS_PROBLEM = problem;
	}

	static {
		Field field = null;
		String problem = null;
		try {
			field = UnifiedJedis.class.getDeclaredField("provider");
			if (!ConnectionProvider.class.isAssignableFrom(field.getType())) {
				problem = "the field " + PROVIDER_FIELD + " is a " + field.getType().getName()
						+ ", not a ConnectionProvider";
				field = null;
			}
			else {
				field.setAccessible(true);
			}
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			problem = "cannot read " + PROVIDER_FIELD + ": " + ex;
			field = null;
		}
		PROVIDER = field;
		PROVIDER_PROBLEM = problem;
	}

	private JedisInternals() {
	}

	/**
	 * Describes the access to Jedis's slot cache: renewal from the seed nodes and pools
	 * for nodes Jedis's slot cache does not list yet.
	 * @return the fast path, active when the field was found
	 */
	public static FastPath slotCache() {
		return new FastPath("jedis-slot-cache", PROVIDER_FIELD,
				"nodes Jedis's slot cache does not list yet (replicas of a fresh cluster, new masters) get a pool only "
						+ "when a keyed command through the client meets a MOVED, or at Jedis's periodic renewal; "
						+ "when no known node answers, the topology is not read again from the seed nodes; pub/sub links "
						+ "to a new master wait for Jedis's renewal",
				PROVIDER_PROBLEM);
	}

	/**
	 * Describes the access to the retry settings of Jedis's cluster client builder, which
	 * tells Slotwise's retry duration (the configured timeout) whether the application
	 * set Jedis's retry settings itself.
	 * @return the fast path, active when the fields were found
	 */
	public static FastPath retrySettingsAccess() {
		return new FastPath("jedis-retry-settings", RETRY_FIELDS,
				"Slotwise cannot tell whether the application's JedisClientBuilderCustomizer set maxAttempts: an "
						+ "application's maxTotalRetriesDuration still wins (it is set after Slotwise's), but one that "
						+ "set only maxAttempts gets spring.data.redis.timeout as the total retry duration, not "
						+ "Jedis's socket timeout times its attempts, and no log line says so",
				RETRY_PROBLEM);
	}

	/**
	 * Describes the pacing of Jedis's slot cache renewals after connection failures,
	 * which needs the settings a cluster client builder passes to the connection provider
	 * it creates.
	 * @return the fast path, active when the fields were found
	 */
	public static FastPath renewalPacing() {
		return new FastPath("jedis-renewal-pacing", PROVIDER_SETTINGS_FIELDS,
				"while a master is down, Jedis renews its slot cache (CLUSTER SLOTS) after every second failed attempt "
						+ "of every command, skipping only renewals that overlap a running one",
				PROVIDER_SETTINGS_PROBLEM);
	}

	/**
	 * Gives a cluster client builder the connection provider it would create, except that
	 * the slot cache renewals Jedis starts after connection failures start at most once
	 * per interval. The builder is left alone when the application set a connection
	 * provider or a client-side cache configuration itself (the builder creates that
	 * cache only when it builds), or when the fields cannot be read.
	 * @param builder the builder, after the application's customizer ran, just before it
	 * builds
	 * @param interval the least time between two such renewals
	 * @return whether the builder got the pacing provider; it then owns the provider, as
	 * its own
	 * @throws redis.clients.jedis.exceptions.JedisException when the provider cannot read
	 * the slot table from any node, as building would
	 */
	@SuppressWarnings("unchecked")
	public static boolean paceRenewals(ClusterClientBuilder<?> builder, Duration interval) {
		Map<String, Field> fields = PROVIDER_SETTINGS;
		if (fields == null) {
			return false;
		}
		Set<HostAndPort> nodes;
		JedisClientConfig clientConfig;
		GenericObjectPoolConfig<Connection> poolConfig;
		Cache cache;
		Duration refreshPeriod;
		try {
			if (fields.get("connectionProvider").get(builder) != null
					|| fields.get("cacheConfig").get(builder) != null) {
				return false;
			}
			nodes = (Set<HostAndPort>) fields.get("nodes").get(builder);
			clientConfig = (JedisClientConfig) fields.get("clientConfig").get(builder);
			poolConfig = (GenericObjectPoolConfig<Connection>) fields.get("poolConfig").get(builder);
			cache = (Cache) fields.get("cache").get(builder);
			refreshPeriod = (Duration) fields.get("topologyRefreshPeriod").get(builder);
		}
		catch (IllegalAccessException | RuntimeException ex) {
			logger.debug("Cannot read " + PROVIDER_SETTINGS_FIELDS + " of " + builder, ex);
			return false;
		}
		if (nodes == null || nodes.isEmpty() || clientConfig == null || poolConfig == null) {
			// Left to the builder, whose validation says what is missing.
			return false;
		}
		builder.connectionProvider(
				new PacedClusterConnectionProvider(nodes, clientConfig, cache, poolConfig, refreshPeriod, interval));
		return true;
	}

	/**
	 * Reads the retry settings of a cluster client builder.
	 * @param builder the builder
	 * @return its settings, or {@code null} when the fields cannot be read
	 */
	public static @Nullable RetrySettings retrySettings(ClusterClientBuilder<?> builder) {
		Field attempts = MAX_ATTEMPTS;
		Field duration = MAX_TOTAL_RETRIES_DURATION;
		if (attempts == null || duration == null) {
			return null;
		}
		try {
			return new RetrySettings(attempts.getInt(builder), (Duration) duration.get(builder));
		}
		catch (IllegalAccessException | RuntimeException ex) {
			logger.debug("Cannot read " + RETRY_FIELDS + " of " + builder, ex);
			return null;
		}
	}

	/**
	 * The retry settings of a Jedis cluster client builder.
	 *
	 * @param maxAttempts the most attempts of a command
	 * @param maxTotalRetriesDuration the longest time all attempts of a command take,
	 * {@code null} for Jedis's default (the socket timeout times the attempts)
	 */
	public record RetrySettings(int maxAttempts, @Nullable Duration maxTotalRetriesDuration) {

	}

	/**
	 * Returns the client's cluster connection provider.
	 * @param client a Jedis cluster client
	 * @return the provider, or {@code null} when the field cannot be read or holds no
	 * cluster provider
	 */
	public static @Nullable ClusterConnectionProvider clusterProvider(UnifiedJedis client) {
		Field field = PROVIDER;
		if (field == null) {
			return null;
		}
		try {
			return (field.get(client) instanceof ClusterConnectionProvider provider) ? provider : null;
		}
		catch (IllegalAccessException | RuntimeException ex) {
			logger.debug("Cannot read " + PROVIDER_FIELD + " of " + client, ex);
			return null;
		}
	}

	/**
	 * Takes a connection to a node for as long as the caller needs it (a pub/sub or
	 * invalidation link), from the node's pool. Jedis creates a node's pool only once its
	 * slot table names the node, which may lag behind the topology (a master just added
	 * or promoted, a replica): then the pool is created through the client's connection
	 * provider ({@link #clusterProvider}), which does exactly that for a given address.
	 * @param client a Jedis cluster client
	 * @param host the node's host
	 * @param port the node's port
	 * @return the connection; closing it returns it to the pool
	 * @throws IllegalStateException when Jedis has no pool for the node and its provider
	 * cannot be reached
	 */
	public static Connection nodeConnection(UnifiedJedis client, String host, int port) {
		ConnectionPool pool = (client instanceof redis.clients.jedis.RedisClusterClient cluster)
				? cluster.getClusterNodes().get(host + ":" + port) : null;
		if (pool != null) {
			return pool.getResource();
		}
		ClusterConnectionProvider provider = clusterProvider(client);
		if (provider == null) {
			throw new IllegalStateException("Jedis has no connection pool for " + host + ":" + port + " yet");
		}
		return provider.getConnection(new HostAndPort(host, port));
	}

	/**
	 * Makes Jedis re-read its slot table from the seed nodes, or from the known nodes
	 * when no seed answers, creating the pools of nodes it had not seen and dropping
	 * those of nodes no longer listed. Does nothing when another thread renews at this
	 * moment (Jedis runs one renewal at a time and skips the others).
	 * @param client a Jedis cluster client
	 * @return whether a renewal was attempted; {@code false} when the slot cache cannot
	 * be reached
	 */
	public static boolean renewSlotCache(UnifiedJedis client) {
		ClusterConnectionProvider provider = clusterProvider(client);
		if (provider == null) {
			return false;
		}
		if (provider instanceof PacedClusterConnectionProvider paced) {
			// Slotwise's topology provider paces its own renewals.
			paced.renewNow();
		}
		else {
			provider.renewSlotCache();
		}
		return true;
	}

	/**
	 * Sets up the pool of a node the way Jedis does for a node its slot table or a
	 * redirect names, when it has none yet: Jedis creates the pool and lends one
	 * connection of it, which goes back at once (so one connection is opened). Jedis
	 * drops the pool again at a later renewal if its slot table still does not list the
	 * node.
	 * @param client a Jedis cluster client, open
	 * @param host the host Jedis keys the pool by
	 * @param port the port
	 * @return the node's pool, or {@code null} when the slot cache cannot be reached
	 * @throws redis.clients.jedis.exceptions.JedisException when the node cannot be
	 * reached (Jedis keeps the pool)
	 */
	public static @Nullable ConnectionPool setUpNode(UnifiedJedis client, String host, int port) {
		ClusterConnectionProvider provider = clusterProvider(client);
		if (provider == null) {
			return null;
		}
		HostAndPort node = new HostAndPort(host, port);
		try (Connection connection = provider.getConnection(node)) {
			// Borrowed only to make Jedis create the pool; returned unused.
		}
		Map<String, ConnectionPool> pools = provider.getNodes();
		return pools.get(node.toString());
	}

}
