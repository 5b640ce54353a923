package dev.slotwise.internal.keyspace;

import java.util.concurrent.Executor;

import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.data.redis.connection.ClusterTopologyProvider;

/**
 * Creates the cluster-wide key walks of one client, which Slotwise's cluster connections
 * put behind {@code scan(ScanOptions)} and {@code keys(byte[])} (and, over Lettuce, the
 * reactive connections').
 */
public final class KeyspaceSupport {

	private KeyspaceSupport() {
	}

	/**
	 * Returns the key walks over Jedis: commands on the node pools of the client, run on
	 * the given executor.
	 * @param settings the walks' limits
	 * @param observer sees each scan
	 * @param client the started client, whose node pools the walks borrow from
	 * @param topologyProvider the factory's topology provider
	 * @param executor runs the walks' node commands (the multi-key executor's threads)
	 * @param readFromReplicas whether the application reads from replicas
	 * @return the key walks
	 */
	public static ReactiveKeyspaceCommands jedis(ScanSettings settings, ScanObserver observer,
			RedisClusterClient client, ClusterTopologyProvider topologyProvider, Executor executor,
			boolean readFromReplicas) {
		check(settings, observer);
		return new ClusterKeyspace(new JedisScanTransport(client, topologyProvider, executor, readFromReplicas),
				settings, observer);
	}

	/**
	 * Returns the key walks over Lettuce: asynchronous commands on the node connections
	 * of a cluster connection.
	 * @param settings the walks' limits
	 * @param observer sees each scan
	 * @param connection the native cluster connection whose node connections the walks
	 * use
	 * @param invalidateTopology asks for a partition refresh after a node failed
	 * @return the key walks
	 */
	public static ReactiveKeyspaceCommands lettuce(ScanSettings settings, ScanObserver observer,
			StatefulRedisClusterConnection<byte[], byte[]> connection, Runnable invalidateTopology) {
		check(settings, observer);
		return new ClusterKeyspace(new LettuceScanTransport(connection, invalidateTopology), settings, observer);
	}

	private static void check(ScanSettings settings, ScanObserver observer) {
		if (settings == null) {
			throw new IllegalArgumentException("'settings' must not be null");
		}
		if (observer == null) {
			throw new IllegalArgumentException("'observer' must not be null");
		}
	}

}
