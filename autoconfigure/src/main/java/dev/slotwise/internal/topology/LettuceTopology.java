package dev.slotwise.internal.topology;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.util.Assert;

/**
 * Slotwise's topology for Lettuce: a cluster client whose refreshes ask a few random
 * nodes, a cache of Spring Data Redis's converted topology, and the refresh options the
 * starter sets.
 */
public final class LettuceTopology {

	private LettuceTopology() {
	}

	/**
	 * Creates a cluster client whose topology refreshes ask {@code refreshSources} random
	 * nodes, with discovery of further nodes off, instead of connecting to every node. A
	 * refresh whose nodes all fail asks the next random nodes, and the configured seed
	 * nodes when no known node answers. Refreshes start at most once per
	 * {@link TopologySettings#minRefreshInterval()}, one at a time, and back off after
	 * failures up to {@link TopologySettings#cacheTtl()}, whatever asks for them
	 * (Lettuce's adaptive and periodic triggers, the multi-key engine); a skipped or
	 * failed refresh keeps the current partitions. The caller sets the client's options
	 * and shuts it down.
	 * @param resources the shared client resources, or {@code null} for the client to
	 * create and own its own
	 * @param initialUris the seed nodes, with client name, credentials, SSL and timeouts
	 * applied
	 * @param refreshSources how many nodes one refresh asks, at least 1; more than one
	 * keeps Lettuce's consensus
	 * @param settings the refresh pacing, replica preference and observer
	 * ({@code initialTimeout} is not used)
	 * @return the client
	 */
	public static RedisClusterClient samplingClient(@Nullable ClientResources resources, Iterable<RedisURI> initialUris,
			int refreshSources, TopologySettings settings) {
		Assert.notNull(initialUris, "'initialUris' must not be null");
		Assert.isTrue(refreshSources >= 1, "'refreshSources' must be at least 1");
		Assert.notNull(settings, "'settings' must not be null");
		return new SamplingRedisClusterClient(resources, initialUris, refreshSources, settings);
	}

	/**
	 * Tells whether a client made by {@link #samplingClient} applied a topology change
	 * after the given time. A failure or redirect seen by a call routed before that
	 * change is explained by it: asking for another refresh because of it would only find
	 * the same topology again.
	 * @param client the client
	 * @param nanos a {@link System#nanoTime()}, e.g. when a call was routed
	 * @return whether a refresh that found a change completed after {@code nanos};
	 * {@code false} for other clients
	 */
	public static boolean changedSince(RedisClusterClient client, long nanos) {
		return client instanceof SamplingRedisClusterClient sampling && sampling.changedSince(nanos);
	}

	/**
	 * Wraps Spring Data Redis's Lettuce topology provider so that it converts Lettuce's
	 * partitions only when they have changed since the last lookup.
	 * @param delegate Spring Data Redis's provider for the client
	 * @param client the client whose partitions the delegate converts
	 * @param observer sees each lookup as a hit (no conversion) or a miss
	 * @return the caching provider
	 */
	public static ClusterTopologyProvider cachingProvider(ClusterTopologyProvider delegate, RedisClusterClient client,
			TopologyObserver observer) {
		Assert.notNull(delegate, "'delegate' must not be null");
		Assert.notNull(client, "'client' must not be null");
		Assert.notNull(observer, "'observer' must not be null");
		return new PartitionsCachingTopologyProvider(delegate, client, observer);
	}

	/**
	 * Returns refresh options equal to the given ones except for periodic refresh.
	 * Adaptive triggers, their rate limit, dynamic refresh sources and stale-connection
	 * closing are kept as configured.
	 * @param base the options configured so far (by Spring Boot and the application)
	 * @param periodicRefresh the refresh period; zero turns periodic refresh off,
	 * {@code null} keeps {@code base}'s
	 * @return the options to use
	 */
	public static ClusterTopologyRefreshOptions refreshOptions(ClusterTopologyRefreshOptions base,
			@Nullable Duration periodicRefresh) {
		Assert.notNull(base, "'base' must not be null");
		ClusterTopologyRefreshOptions.Builder builder = ClusterTopologyRefreshOptions.builder()
			.adaptiveRefreshTriggersTimeout(base.getAdaptiveRefreshTimeout())
			.closeStaleConnections(base.isCloseStaleConnections())
			.dynamicRefreshSources(base.useDynamicRefreshSources())
			.refreshTriggersReconnectAttempts(base.getRefreshTriggersReconnectAttempts());
		// The builder starts with every adaptive trigger on (Lettuce's default); switch
		// off only those base has off.
		Set<RefreshTrigger> off = EnumSet.allOf(RefreshTrigger.class);
		off.removeAll(base.getAdaptiveRefreshTriggers());
		if (!off.isEmpty()) {
			builder.disableAdaptiveRefreshTrigger(off.toArray(new RefreshTrigger[0]));
		}
		if (periodicRefresh == null) {
			builder.enablePeriodicRefresh(base.isPeriodicRefreshEnabled()).refreshPeriod(base.getRefreshPeriod());
		}
		else if (periodicRefresh.isZero()) {
			builder.enablePeriodicRefresh(false);
		}
		else {
			builder.enablePeriodicRefresh(periodicRefresh);
		}
		return builder.build();
	}

}
