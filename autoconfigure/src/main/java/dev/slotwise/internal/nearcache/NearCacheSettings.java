package dev.slotwise.internal.nearcache;

import java.time.Duration;
import java.util.List;

/**
 * The limits of a near cache ({@code slotwise.near-cache.*}).
 *
 * @param maxEntries the most entries kept
 * @param maxBytes the most bytes of keys and values kept
 * @param timeToLive how long an entry is kept at most, invalidated or not (the last
 * safety net)
 * @param keyPrefixes the key prefixes whose template reads ({@code GET}, {@code MGET})
 * are cached
 */
public record NearCacheSettings(long maxEntries, long maxBytes, Duration timeToLive, List<byte[]> keyPrefixes) {

	/**
	 * Checks the limits.
	 * @param maxEntries the most entries kept
	 * @param maxBytes the most bytes of keys and values kept
	 * @param timeToLive how long an entry is kept at most
	 * @param keyPrefixes the key prefixes of cached template reads
	 */
	public NearCacheSettings {
		if (maxEntries < 1) {
			throw new IllegalArgumentException("slotwise.near-cache.max-entries must be at least 1, was " + maxEntries);
		}
		if (maxBytes < maxEntries) {
			throw new IllegalArgumentException("slotwise.near-cache.max-bytes (" + maxBytes
					+ ") must be at least slotwise.near-cache.max-entries (" + maxEntries + ")");
		}
		if (timeToLive.isNegative() || timeToLive.isZero()) {
			throw new IllegalArgumentException("slotwise.near-cache.time-to-live must be positive, was " + timeToLive);
		}
		for (byte[] prefix : keyPrefixes) {
			if (prefix.length == 0) {
				throw new IllegalArgumentException(
						"slotwise.near-cache.key-prefixes must not contain an empty prefix: it would track every key");
			}
		}
		keyPrefixes = List.copyOf(keyPrefixes);
	}

}
