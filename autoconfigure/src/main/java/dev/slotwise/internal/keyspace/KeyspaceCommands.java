package dev.slotwise.internal.keyspace;

import java.util.Set;

import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

/**
 * The cluster-wide key walks a cluster connection's key commands hand
 * {@code scan(ScanOptions)} and {@code keys(byte[])} to (implemented in
 * {@code dev.slotwise.internal.keyspace}); without one they stay Spring Data Redis's.
 */
public interface KeyspaceCommands {

	/**
	 * Scans every master.
	 * @param options match, count and type, passed to every node
	 * @return the keys, each at least once
	 */
	Cursor<byte[]> scan(ScanOptions options);

	/**
	 * Returns the keys matching a pattern on every master.
	 * @param pattern the pattern
	 * @return the keys
	 */
	Set<byte[]> keys(byte[] pattern);

}
