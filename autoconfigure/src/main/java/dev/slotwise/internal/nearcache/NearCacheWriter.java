package dev.slotwise.internal.nearcache;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.cache.CacheStatistics;
import org.springframework.data.redis.cache.CacheStatisticsCollector;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.connection.RedisConnection;

/**
 * A {@link RedisCacheWriter} that keeps what the caches of the chosen names read from
 * Redis in the near cache, in front of the writer Spring Boot (or Slotwise's cluster
 * cache clear) would use. Reads are answered from memory while the nodes' invalidations
 * say the value is current; every put, eviction and clear goes to Redis and drops the
 * local entries first and after, so a cache reads its own writes at once.
 * <p>
 * A read with a time-to-idle ({@code get(name, key, ttl)}) is left to Redis: a hit in
 * memory would not renew the key's expiration there.
 */
public final class NearCacheWriter implements RedisCacheWriter {

	private final RedisCacheWriter delegate;

	private final NearCache cache;

	private final Predicate<String> names;

	private final Function<String, byte[]> prefixOf;

	/**
	 * Creates the writer.
	 * @param delegate the writer that talks to Redis
	 * @param cache the near cache
	 * @param names which caches the near cache serves
	 * @param prefixOf the key prefix of a cache's keys, for its {@code clear()}
	 */
	public NearCacheWriter(RedisCacheWriter delegate, NearCache cache, Predicate<String> names,
			Function<String, byte[]> prefixOf) {
		this.delegate = delegate;
		this.cache = cache;
		this.names = names;
		this.prefixOf = prefixOf;
	}

	/**
	 * Returns the writer this one keeps values in front of.
	 * @return the delegate
	 */
	public RedisCacheWriter delegate() {
		return this.delegate;
	}

	@Override
	public byte @Nullable [] get(String name, byte[] key) {
		if (!this.names.test(name)) {
			return this.delegate.get(name, key);
		}
		byte[] value = this.cache.lookup(key);
		if (value != null) {
			return value;
		}
		long ticket = this.cache.ticket(key);
		value = this.delegate.get(name, key);
		this.cache.offer(key, ticket, value);
		return value;
	}

	@Override
	public byte @Nullable [] get(String name, byte[] key, @Nullable Duration ttl) {
		if (ttl == null) {
			return get(name, key);
		}
		return this.delegate.get(name, key, ttl);
	}

	@Override
	public byte @Nullable [] get(String name, byte[] key, Supplier<byte[]> valueLoader, @Nullable Duration ttl,
			boolean timeToIdleEnabled) {
		if (!this.names.test(name) || timeToIdleEnabled) {
			return this.delegate.get(name, key, valueLoader, ttl, timeToIdleEnabled);
		}
		byte[] value = this.cache.lookup(key);
		if (value != null) {
			return value;
		}
		long ticket = this.cache.ticket(key);
		value = this.delegate.get(name, key, valueLoader, ttl, false);
		// When the loader ran, the delegate wrote the value: its invalidation comes back
		// and disowns this offer, or drops the entry a moment later. Either way nothing
		// stale is kept.
		this.cache.offer(key, ticket, value);
		return value;
	}

	@Override
	public boolean supportsAsyncRetrieve() {
		return this.delegate.supportsAsyncRetrieve();
	}

	@Override
	public CompletableFuture<byte[]> retrieve(String name, byte[] key, @Nullable Duration ttl) {
		if (!this.names.test(name) || ttl != null) {
			return this.delegate.retrieve(name, key, ttl);
		}
		byte[] value = this.cache.lookup(key);
		if (value != null) {
			return CompletableFuture.completedFuture(value);
		}
		long ticket = this.cache.ticket(key);
		return this.delegate.retrieve(name, key, null).thenApply((retrieved) -> {
			this.cache.offer(key, ticket, retrieved);
			return retrieved;
		});
	}

	@Override
	public void put(String name, byte[] key, byte[] value, @Nullable Duration ttl) {
		written(name, key, () -> {
			this.delegate.put(name, key, value, ttl);
			return null;
		});
	}

	@Override
	public CompletableFuture<Void> store(String name, byte[] key, byte[] value, @Nullable Duration ttl) {
		if (!this.names.test(name)) {
			return this.delegate.store(name, key, value, ttl);
		}
		this.cache.written(key);
		return this.delegate.store(name, key, value, ttl).whenComplete((ignored, failure) -> this.cache.written(key));
	}

	@Override
	public byte @Nullable [] putIfAbsent(String name, byte[] key, byte[] value, @Nullable Duration ttl) {
		return written(name, key, () -> this.delegate.putIfAbsent(name, key, value, ttl));
	}

	@Override
	public void remove(String name, byte[] key) {
		written(name, key, () -> {
			this.delegate.remove(name, key);
			return null;
		});
	}

	@Override
	public void evict(String name, byte[] key) {
		written(name, key, () -> {
			this.delegate.evict(name, key);
			return null;
		});
	}

	@Override
	public boolean evictIfPresent(String name, byte[] key) {
		Boolean evicted = written(name, key, () -> this.delegate.evictIfPresent(name, key));
		return Boolean.TRUE.equals(evicted);
	}

	@Override
	public void clean(String name, byte[] pattern) {
		cleared(name, () -> this.delegate.clean(name, pattern));
	}

	@Override
	public void clear(String name, byte[] pattern) {
		cleared(name, () -> this.delegate.clear(name, pattern));
	}

	@Override
	public boolean invalidate(String name, byte[] pattern) {
		boolean[] result = new boolean[1];
		cleared(name, () -> result[0] = this.delegate.invalidate(name, pattern));
		return result[0];
	}

	@Override
	public void clearStatistics(String name) {
		this.delegate.clearStatistics(name);
	}

	@Override
	public <T> T execute(Function<RedisConnection, T> callback) {
		return this.delegate.execute(callback);
	}

	@Override
	public RedisCacheWriter withStatisticsCollector(CacheStatisticsCollector collector) {
		return new NearCacheWriter(this.delegate.withStatisticsCollector(collector), this.cache, this.names,
				this.prefixOf);
	}

	@Override
	public CacheStatistics getCacheStatistics(String name) {
		return this.delegate.getCacheStatistics(name);
	}

	private <T> @Nullable T written(String name, byte[] key, Supplier<@Nullable T> write) {
		if (!this.names.test(name)) {
			return write.get();
		}
		this.cache.written(key);
		try {
			return write.get();
		}
		finally {
			this.cache.written(key);
		}
	}

	private void cleared(String name, Runnable clear) {
		if (!this.names.test(name)) {
			clear.run();
			return;
		}
		byte[] prefix = this.prefixOf.apply(name);
		Predicate<byte[]> ofCache = (key) -> Prefixes.startsWith(key, prefix);
		this.cache.drop(ofCache, "clear");
		try {
			clear.run();
		}
		finally {
			this.cache.drop(ofCache, "clear");
		}
	}

}
