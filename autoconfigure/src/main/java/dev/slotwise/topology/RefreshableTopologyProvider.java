package dev.slotwise.topology;

import org.springframework.data.redis.connection.ClusterTopologyProvider;

/**
 * A {@link ClusterTopologyProvider} that caches the topology and can be told that it is stale, as the multi-key
 * engine does after a {@code MOVED} or {@code ASK} reply.
 */
public interface RefreshableTopologyProvider extends ClusterTopologyProvider {

	/**
	 * Marks the cached topology as stale so that the next lookup refreshes it. Cheap and safe to call from many
	 * threads at once: it never sends a command itself.
	 */
	void invalidate();

}
