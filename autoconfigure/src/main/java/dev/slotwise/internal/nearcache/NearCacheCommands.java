package dev.slotwise.internal.nearcache;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisStringCommands;

/**
 * The near cache in front of one connection's string and key commands, for keys under
 * {@code slotwise.near-cache.key-prefixes}: {@code get} and {@code mGet} answer from
 * memory what they can and send the rest on (an {@code mGet}'s misses in one call,
 * through the multi-key engine behind); every other command that names a covered key
 * drops it from memory before it is sent and again after it returned, so the application
 * reads its own writes at once, without waiting for the node's invalidation. Commands
 * that only read (such as {@code strLen}, {@code exists}, {@code ttl}) pass through
 * untouched. Pipelined and queued commands pass through as well (their replies come
 * later, at {@code closePipeline()} or {@code exec()}), dropping the covered keys they
 * may write when they are queued.
 * <p>
 * Dynamic proxies, as the multi-key layer's: the two interfaces have dozens of methods
 * and gain more in every Spring Data Redis release.
 */
public final class NearCacheCommands {

	/** String and key commands that read without changing anything. */
	private static final Set<String> READS = Set.of("getRange", "getBit", "bitCount", "bitPos", "strLen", "exists",
			"type", "ttl", "pTtl", "keys", "scan", "randomKey", "dump", "encodingOf", "idletime", "refcount", "touch",
			"sort");

	private NearCacheCommands() {
	}

	/**
	 * Wraps string commands.
	 * @param cache the near cache
	 * @param next the commands behind
	 * @param bypass whether the connection is pipelining or queueing a transaction right
	 * now
	 * @return the commands to use
	 */
	public static RedisStringCommands strings(NearCache cache, RedisStringCommands next, BooleanSupplier bypass) {
		return proxy(RedisStringCommands.class, next, (method, args) -> {
			if (bypass.getAsBoolean()) {
				return queued(cache, method, next, args);
			}
			if (method.getName().equals("get") && args != null && args.length == 1 && args[0] instanceof byte[] key) {
				return get(cache, next, key);
			}
			if (method.getName().equals("mGet") && args != null && args.length == 1
					&& args[0] instanceof byte[][] keys) {
				return mGet(cache, next, keys);
			}
			return written(cache, method, next, args);
		});
	}

	/**
	 * Wraps key commands.
	 * @param cache the near cache
	 * @param next the commands behind
	 * @param bypass whether the connection is pipelining or queueing a transaction right
	 * now
	 * @return the commands to use
	 */
	public static RedisKeyCommands keys(NearCache cache, RedisKeyCommands next, BooleanSupplier bypass) {
		return proxy(RedisKeyCommands.class, next, (method, args) -> bypass.getAsBoolean()
				? queued(cache, method, next, args) : written(cache, method, next, args));
	}

	private static byte @Nullable [] get(NearCache cache, RedisStringCommands next, byte[] key) {
		if (!cache.coversTemplateKey(key)) {
			return next.get(key);
		}
		byte[] value = cache.lookup(key);
		if (value != null) {
			return value;
		}
		long ticket = cache.ticket(key);
		value = next.get(key);
		cache.offer(key, ticket, value);
		return value;
	}

	private static @Nullable List<byte[]> mGet(NearCache cache, RedisStringCommands next, byte[][] keys) {
		List<byte[]> values = new ArrayList<>(keys.length);
		// Whether each key is covered is decided once, here: only covered misses take a
		// ticket and are offered.
		List<Integer> missing = new ArrayList<>();
		List<Boolean> coveredMisses = new ArrayList<>();
		int hits = 0;
		for (int i = 0; i < keys.length; i++) {
			byte[] key = keys[i];
			boolean covered = cache.coversTemplateKey(key);
			byte[] value = covered ? cache.peek(key) : null;
			values.add(value);
			if (value == null) {
				missing.add(i);
				coveredMisses.add(covered);
			}
			else {
				hits++;
			}
		}
		if (missing.isEmpty()) {
			cache.count(true, hits);
			return values;
		}
		byte[][] misses = new byte[missing.size()][];
		long[] tickets = new long[misses.length];
		int covered = 0;
		for (int i = 0; i < misses.length; i++) {
			misses[i] = keys[missing.get(i)];
			if (coveredMisses.get(i)) {
				tickets[i] = cache.ticket(misses[i]);
				covered++;
			}
		}
		List<byte[]> fetched = next.mGet(misses);
		if (fetched == null) {
			return null;
		}
		for (int i = 0; i < misses.length; i++) {
			byte[] value = fetched.get(i);
			values.set(missing.get(i), value);
			if (coveredMisses.get(i)) {
				cache.offer(misses[i], tickets[i], value);
			}
		}
		cache.count(true, hits);
		cache.count(false, covered);
		return values;
	}

	private static @Nullable Object written(NearCache cache, Method method, Object next, Object @Nullable [] args)
			throws Throwable {
		if (args == null || READS.contains(method.getName())) {
			return invoke(method, next, args);
		}
		List<byte[]> keys = coveredKeys(cache, args);
		if (keys.isEmpty()) {
			return invoke(method, next, args);
		}
		keys.forEach(cache::written);
		try {
			return invoke(method, next, args);
		}
		finally {
			// A read that began after the first drop may have been answered before the
			// write ran, and kept.
			keys.forEach(cache::written);
		}
	}

	/**
	 * A command queued in a pipeline or a transaction: it runs later, so a covered key it
	 * may write is dropped now, and the node's invalidation drops it again once the
	 * command ran. Without the drop, a read of this thread after {@code closePipeline()}
	 * could be answered from memory with the value the pipeline just replaced.
	 */
	private static @Nullable Object queued(NearCache cache, Method method, Object next, Object @Nullable [] args)
			throws Throwable {
		if (args != null && !READS.contains(method.getName()) && !method.getName().equals("get")
				&& !method.getName().equals("mGet")) {
			coveredKeys(cache, args).forEach(cache::written);
		}
		return invoke(method, next, args);
	}

	/**
	 * Every key-like argument under a covered prefix: keys, key arrays and maps of keys
	 * (values do no harm).
	 */
	private static List<byte[]> coveredKeys(NearCache cache, Object[] args) {
		List<byte[]> keys = new ArrayList<>();
		for (Object arg : args) {
			if (arg instanceof byte[] key) {
				addIfCovered(cache, keys, key);
			}
			else if (arg instanceof byte[][] array) {
				for (byte[] key : array) {
					addIfCovered(cache, keys, key);
				}
			}
			else if (arg instanceof Map<?, ?> map) {
				for (Object key : map.keySet()) {
					if (key instanceof byte[] bytes) {
						addIfCovered(cache, keys, bytes);
					}
				}
			}
		}
		return keys;
	}

	private static void addIfCovered(NearCache cache, List<byte[]> keys, byte @Nullable [] key) {
		if (key != null && cache.coversTemplateKey(key)) {
			keys.add(key);
		}
	}

	@FunctionalInterface
	private interface Handler {

		@Nullable Object handle(Method method, Object @Nullable [] args) throws Throwable;

	}

	private static <T> T proxy(Class<T> type, T next, Handler handler) {
		return type
			.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, (proxy, method, args) -> {
				if (method.getDeclaringClass() == Object.class) {
					return switch (method.getName()) {
						case "equals" -> proxy == args[0];
						case "hashCode" -> System.identityHashCode(proxy);
						default -> "Slotwise near cache " + next;
					};
				}
				return handler.handle(method, args);
			}));
	}

	private static @Nullable Object invoke(Method method, Object target, Object @Nullable [] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
