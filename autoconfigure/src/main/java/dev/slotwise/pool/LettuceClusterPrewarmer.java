package dev.slotwise.pool;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;

/**
 * Opens Lettuce's connections ahead of the first request: the node connections of the shared cluster connection,
 * and the pool's minimum idle cluster connections, each connected to the nodes. Lettuce connects to each node
 * lazily, on the first command routed to it; that connect is what the first requests would pay.
 */
public final class LettuceClusterPrewarmer {

	private static final Log logger = LogFactory.getLog(LettuceClusterPrewarmer.class);

	private LettuceClusterPrewarmer() {
	}

	/**
	 * Connects the shared connection to every master (and replica, when reads may go to replicas), then fills the
	 * pool of dedicated cluster connections (blocking commands, transactions, and every command when the native
	 * connection is not shared) with {@code minIdle} connections connected the same way. Logs one WARN per node that
	 * could not be reached, however many connections tried it.
	 * @param shared the shared cluster connection, or {@code null} when the native connection is not shared
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
				// Borrowed all at once and released together: releasing each at once would hand the same one back.
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
			String key = node.getUri().getHost() + ":" + node.getUri().getPort();
			try {
				connection.getConnection(node.getNodeId());
				warmed.add(key);
			}
			catch (RuntimeException ex) {
				failed.putIfAbsent(key, ex);
			}
		}
	}

}
