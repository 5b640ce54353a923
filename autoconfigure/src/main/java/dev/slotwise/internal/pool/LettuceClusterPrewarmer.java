package dev.slotwise.internal.pool;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.protocol.ConnectionIntent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;

/**
 * Opens Lettuce's connections ahead of the first request: the node connections of the
 * shared cluster connection, and the pool's minimum idle cluster connections, each
 * connected to the nodes. Lettuce connects to each node lazily, on the first command
 * routed to it; that connect is what the first requests would pay.
 */
public final class LettuceClusterPrewarmer {

	private static final Log logger = LogFactory.getLog(LettuceClusterPrewarmer.class);

	private LettuceClusterPrewarmer() {
	}

	/**
	 * Like
	 * {@link #prewarm(StatefulRedisClusterConnection, LettuceConnectionProvider, int, boolean)},
	 * opening the shared connection first. When the cluster cannot be reached at all
	 * (down, not a cluster, refused credentials), logs one warning naming the cause and
	 * returns, so that the application starts and its first command fails with Spring
	 * Data Redis's usual exception, as it would without pre-warm; nothing is retried in
	 * the background.
	 * @param shared opens the shared cluster connection, or returns {@code null} when the
	 * native connection is not shared
	 * @param pools returns the factory's connection provider when it pools, or
	 * {@code null}
	 * @param minIdle the pool's minimum idle connections
	 * @param includeReplicas whether replicas are connected too
	 * @return what was warmed and what failed; an empty result when the cluster could not
	 * be reached
	 */
	public static PrewarmResult prewarm(Supplier<@Nullable StatefulRedisClusterConnection<?, ?>> shared,
			Supplier<@Nullable LettuceConnectionProvider> pools, int minIdle, boolean includeReplicas) {
		StatefulRedisClusterConnection<?, ?> connection;
		LettuceConnectionProvider pool;
		try {
			connection = shared.get();
			pool = pools.get();
			if (connection == null && pool != null && minIdle > 0) {
				// No shared connection to prove the cluster reachable: the pool's first
				// connection does.
				StatefulRedisClusterConnection<?, ?> first = pool.getConnection(StatefulRedisClusterConnection.class);
				pool.release(first);
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not pre-warm the connections to the Redis Cluster; start-up goes on and the first "
					+ "commands will connect: " + rootMessage(ex));
			return new PrewarmResult(List.of(), Map.of());
		}
		return prewarm(connection, pool, minIdle, includeReplicas);
	}

	/**
	 * The messages of an exception and its causes, and of what Lettuce attaches as
	 * suppressed (one failure per node asked for the topology), so that the one warning
	 * names the real cause: refused, not a cluster, wrong password.
	 */
	private static String rootMessage(Throwable ex) {
		Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
		List<String> messages = new ArrayList<>();
		collectMessages(ex, seen, messages);
		return String.join("; caused by ", messages);
	}

	private static void collectMessages(@Nullable Throwable ex, Set<Throwable> seen, List<String> messages) {
		for (Throwable current = ex; current != null && seen.add(current); current = current.getCause()) {
			// One line: Lettuce lists each node's failure on lines of their own.
			messages.add(String.valueOf(current.getMessage()).strip().replaceAll("\\s*\\R\\s*", " "));
			for (Throwable suppressed : current.getSuppressed()) {
				collectMessages(suppressed, seen, messages);
			}
		}
	}

	/**
	 * Connects the shared connection to every master (and replica, when reads may go to
	 * replicas), then fills the pool of dedicated cluster connections (blocking commands,
	 * transactions, and every command when the native connection is not shared) with
	 * {@code minIdle} connections connected the same way. Logs one WARN per node that
	 * could not be reached, however many connections tried it.
	 * @param shared the shared cluster connection, or {@code null} when the native
	 * connection is not shared
	 * @param pool the factory's connection provider when it pools, or {@code null}
	 * @param minIdle the pool's minimum idle connections
	 * @param includeReplicas whether replicas are connected too
	 * @return what was warmed and what failed
	 */
	public static PrewarmResult prewarm(@Nullable StatefulRedisClusterConnection<?, ?> shared,
			@Nullable LettuceConnectionProvider pool, int minIdle, boolean includeReplicas) {
		Set<String> warmed = new LinkedHashSet<>();
		Map<String, Exception> failed = new LinkedHashMap<>();
		if (shared != null) {
			connect(shared, includeReplicas, warmed, failed);
		}
		if (pool != null && minIdle > 0) {
			List<StatefulRedisClusterConnection<?, ?>> borrowed = new ArrayList<>(minIdle);
			try {
				// Borrowed all at once and released together: releasing each at once
				// would hand the same one back.
				for (int i = 0; i < minIdle; i++) {
					StatefulRedisClusterConnection<?, ?> connection = pool
						.getConnection(StatefulRedisClusterConnection.class);
					borrowed.add(connection);
					connect(connection, includeReplicas, warmed, failed);
				}
			}
			catch (RuntimeException ex) {
				// Not a node: the pool itself could not hand out a connection.
				logger.warn("Could not pre-warm Lettuce's connection pool: " + ex.getMessage());
			}
			finally {
				borrowed.forEach(pool::release);
			}
		}
		warmed.removeAll(failed.keySet());
		failed.forEach((node, ex) -> logger
			.warn("Could not pre-warm the connection to Redis node " + node + ": " + ex.getMessage()));
		return new PrewarmResult(List.copyOf(warmed), failed);
	}

	private static void connect(StatefulRedisClusterConnection<?, ?> connection, boolean includeReplicas,
			Set<String> warmed, Map<String, Exception> failed) {
		for (RedisClusterNode node : connection.getPartitions()) {
			boolean master = node.is(RedisClusterNode.NodeFlag.UPSTREAM);
			if (!master && !includeReplicas) {
				continue;
			}
			RedisURI uri = node.getUri();
			String key = uri.getHost() + ":" + uri.getPort();
			try {
				// The connections commands are routed over: Lettuce's slot routing (and
				// Slotwise's engine) keys node
				// connections by host and port, a master's as WRITE and a replica's as
				// READ (opened with READONLY);
				// connections asked for by node id are others, which no routed command
				// uses.
				connection.getConnection(uri.getHost(), uri.getPort(),
						master ? ConnectionIntent.WRITE : ConnectionIntent.READ);
				warmed.add(key);
			}
			catch (RuntimeException ex) {
				failed.putIfAbsent(key, ex);
			}
		}
	}

}
