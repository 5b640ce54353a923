package dev.slotwise.internal.keyspace;

import dev.slotwise.internal.multikey.JedisMultiKeySupport;
import dev.slotwise.internal.multikey.LettuceMultiKeySupport;

/**
 * Creates the cluster-wide key walks for the multi-key customizers of each client, which put them behind the cluster
 * connections' {@code scan(ScanOptions)} and {@code keys(byte[])} (and, over Lettuce, the reactive connections').
 */
public final class KeyspaceSupport {

	private KeyspaceSupport() {
	}

	/**
	 * Returns the key walks over Jedis: commands on the node pools of the client, run on the multi-key executor.
	 * @param settings the walks' limits
	 * @param observer sees each scan
	 * @return the factory of key walks
	 */
	public static JedisMultiKeySupport.Keyspaces jedis(ScanSettings settings, ScanObserver observer) {
		check(settings, observer);
		return (client, topologyProvider, executor, readFromReplicas) -> new ClusterKeyspace(
				new JedisScanTransport(client, topologyProvider, executor, readFromReplicas), settings, observer);
	}

	/**
	 * Returns the key walks over Lettuce: asynchronous commands on the node connections of a cluster connection.
	 * @param settings the walks' limits
	 * @param observer sees each scan
	 * @return the factory of key walks
	 */
	public static LettuceMultiKeySupport.Keyspaces lettuce(ScanSettings settings, ScanObserver observer) {
		check(settings, observer);
		return (connection, invalidate) -> new ClusterKeyspace(new LettuceScanTransport(connection, invalidate),
				settings, observer);
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
