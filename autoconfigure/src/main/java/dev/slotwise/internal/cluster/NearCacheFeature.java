package dev.slotwise.internal.cluster;

import java.util.function.Supplier;

import dev.slotwise.internal.nearcache.JedisNearCacheSupport;
import dev.slotwise.internal.nearcache.LettuceNearCacheSupport;
import dev.slotwise.internal.nearcache.NearCache;
import dev.slotwise.internal.nearcache.NearCacheBuffers;
import dev.slotwise.internal.nearcache.NearCacheCommands;
import dev.slotwise.internal.nearcache.NearCacheRuntime;
import dev.slotwise.internal.nearcache.RemoteReadObserver;
import dev.slotwise.internal.nearcache.RemoteReads;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.cluster.RedisClusterClient;

import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisStringCommands;
import org.springframework.util.Assert;

/**
 * The near cache in front of template reads of keys under
 * {@code slotwise.near-cache.key-prefixes} ({@code slotwise.near-cache.enabled}): the
 * outermost command layer, so that an {@code mGet}'s misses go on through the multi-key
 * engine. Its tracking starts on a factory's client when the first connection opens.
 */
public final class NearCacheFeature {

	/** The feature's name. */
	public static final String NAME = "near-cache";

	private NearCacheFeature() {
	}

	/**
	 * Returns the feature over Jedis.
	 * @param nearCache the near cache, owned by the caller
	 * @return the feature
	 */
	public static JedisClusterFeature jedis(NearCacheRuntime nearCache) {
		return jedis(nearCache, () -> RemoteReadObserver.NONE);
	}

	/**
	 * Returns the feature over Jedis, with the reads sent to Redis observed.
	 * @param nearCache the near cache, owned by the caller
	 * @param observer what watches the reads that missed, resolved when the factory
	 * starts
	 * @return the feature
	 */
	public static JedisClusterFeature jedis(NearCacheRuntime nearCache, Supplier<RemoteReadObserver> observer) {
		Assert.notNull(nearCache, "'nearCache' must not be null");
		return JedisClusterFeature.of(NAME, (runtime) -> {
			RemoteReadObserver remote = observer.get();
			return (connection) -> {
				JedisNearCacheSupport.ensureTracking(nearCache, runtime.client(), runtime.topologyProvider());
				return layer(nearCache.cache(), connection, remote);
			};
		});
	}

	/**
	 * Returns the feature over Lettuce.
	 * @param nearCache the near cache, owned by the caller
	 * @return the feature
	 */
	public static LettuceClusterFeature lettuce(NearCacheRuntime nearCache) {
		return lettuce(nearCache, () -> RemoteReadObserver.NONE);
	}

	/**
	 * Returns the feature over Lettuce, with the reads sent to Redis observed.
	 * @param nearCache the near cache, owned by the caller
	 * @param observer what watches the reads that missed, resolved when the factory
	 * starts
	 * @return the feature
	 */
	public static LettuceClusterFeature lettuce(NearCacheRuntime nearCache, Supplier<RemoteReadObserver> observer) {
		Assert.notNull(nearCache, "'nearCache' must not be null");
		return LettuceClusterFeature.of(NAME, (runtime) -> {
			RemoteReadObserver remote = observer.get();
			Runnable ensureTracking = () -> {
				AbstractRedisClient client = runtime.factory().getNativeClient();
				if (client instanceof RedisClusterClient cluster) {
					LettuceNearCacheSupport.ensureTracking(nearCache, cluster,
							runtime.factory()::getRequiredTopologyProvider,
							() -> runtime.refreshTopology(System.nanoTime()));
				}
			};
			// Reactive reads too: a reactive application may never open an imperative
			// connection.
			runtime.factory().setReactiveNearCache(new NearCacheBuffers(nearCache.cache(), ensureTracking));
			return (connection) -> {
				ensureTracking.run();
				return layer(nearCache.cache(), connection, remote);
			};
		});
	}

	private static ConnectionPart layer(NearCache cache, ConnectionView connection, RemoteReadObserver remote) {
		return new ConnectionPart() {

			@Override
			public RedisStringCommands strings(RedisStringCommands next) {
				// Observed behind the near cache, where only the reads that missed
				// arrive: a hit costs nothing more.
				RedisStringCommands behind = (remote == RemoteReadObserver.NONE) ? next
						: RemoteReads.strings(cache, next, remote, connection::isPipelinedOrQueueing);
				return NearCacheCommands.strings(cache, behind, connection::isPipelinedOrQueueing);
			}

			@Override
			public RedisKeyCommands keys(RedisKeyCommands next) {
				return NearCacheCommands.keys(cache, next, connection::isPipelinedOrQueueing);
			}

		};
	}

}
