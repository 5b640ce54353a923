package dev.slotwise.internal.topology;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.ClusterTopologyProvider;

/**
 * A {@link ClusterTopologyProvider} that caches the topology and can be told that it is
 * stale, as the multi-key engine does after a {@code MOVED} or {@code ASK} reply.
 */
public interface RefreshableTopologyProvider extends ClusterTopologyProvider {

	/**
	 * Marks the cached topology as stale so that the next lookup refreshes it. Cheap and
	 * safe to call from many threads at once: it never sends a command itself.
	 */
	void invalidate();

	/**
	 * Returns the topology this provider fetched last, however old, without fetching and
	 * without counting a lookup: for observers such as a health check, which must not
	 * send {@code CLUSTER NODES} each time they look.
	 * @return the last fetched topology, or {@code null} before the first fetch
	 */
	@Nullable ClusterTopology lastFetchedTopology();

	/**
	 * Marks a provider's cached topology as stale when it is one that caches (a Slotwise
	 * provider); Spring Data Redis's own providers have nothing to mark.
	 * @param provider the connection's topology provider
	 */
	static void invalidateIfCaching(ClusterTopologyProvider provider) {
		if (provider instanceof RefreshableTopologyProvider refreshable) {
			refreshable.invalidate();
		}
	}

}
