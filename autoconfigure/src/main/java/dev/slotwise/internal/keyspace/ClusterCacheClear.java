package dev.slotwise.internal.keyspace;

import java.util.ArrayList;
import java.util.List;

import org.springframework.data.redis.cache.BatchStrategy;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

/**
 * Slotwise's {@link BatchStrategy} of cache clearing: the cluster-wide {@code SCAN} of
 * the connection's key commands, which removes every key with {@code UNLINK} on the
 * master where its walk found it (one command per slot, pipelined on that master); keys a
 * walk could not remove (their slot moved, their node stopped answering or refused
 * {@code UNLINK}) are deleted through the connection with {@code DEL}, as Spring Data
 * Redis's strategies delete, routed as usual. No master runs {@code KEYS}, and no key
 * travels back to be deleted.
 * <p>
 * Set on the cache writer by Slotwise's cache auto-configuration on a cluster. On a
 * connection whose {@code scan} is not Slotwise's cluster-wide scan it deletes what the
 * scan returns, a page at a time, as {@code BatchStrategies.scan(count)} does.
 */
public final class ClusterCacheClear implements BatchStrategy {

	private final int count;

	/**
	 * Creates the strategy.
	 * @param count the {@code COUNT} hint of every node's {@code SCAN}, and the keys per
	 * {@code DEL} when the scan is not Slotwise's
	 */
	public ClusterCacheClear(int count) {
		if (count < 1) {
			throw new IllegalArgumentException("'count' must be at least 1, was " + count);
		}
		this.count = count;
	}

	@Override
	public long cleanCache(RedisConnection connection, String name, byte[] pattern) {
		RedisKeyCommands keys = connection.keyCommands();
		Cursor<byte[]> cursor = keys.scan(ScanOptions.scanOptions().count(this.count).match(pattern).build());
		if (cursor instanceof ClusterScanCursor clusterScan) {
			return clusterScan.clearCache((rest) -> delete(keys, rest));
		}
		long deleted = 0;
		try (cursor) {
			List<byte[]> page = new ArrayList<>(this.count);
			while (cursor.hasNext()) {
				page.add(cursor.next());
				if (page.size() == this.count || !cursor.hasNext()) {
					deleted += delete(keys, page.toArray(new byte[0][]));
					page.clear();
				}
			}
		}
		return deleted;
	}

	private static long delete(RedisKeyCommands keys, byte[][] rest) {
		Long deleted = keys.del(rest);
		return (deleted != null) ? deleted : 0;
	}

	@Override
	public String toString() {
		return "Slotwise's cluster-wide SCAN, UNLINK where found (COUNT " + this.count + ")";
	}

}
