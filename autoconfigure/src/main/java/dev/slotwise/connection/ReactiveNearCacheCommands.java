package dev.slotwise.connection;

import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.lettuce.core.KeyValue;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The near cache in front of Lettuce's reactive cluster commands: {@code get} and
 * {@code mget} of covered keys are answered from memory where they can ({@code mget}
 * sends only the misses, on through the multi-key router), and any other command whose
 * keys are covered drops them when it is subscribed and again when it ends. Commands that
 * only read pass through.
 */
final class ReactiveNearCacheCommands {

	/** Reactive commands on string keys that read without changing anything. */
	private static final Set<String> READS = Set.of("strlen", "getrange", "getbit", "bitcount", "bitpos", "exists",
			"type", "ttl", "pttl", "expiretime", "pexpiretime", "dump", "touch", "objectEncoding", "objectIdletime",
			"objectFreq", "objectRefcount", "scan", "keys");

	/** Calls the commands behind the near cache (the router, then Lettuce). */
	@FunctionalInterface
	interface Next {

		@Nullable Object invoke(Method method, @Nullable Object[] args) throws Throwable;

	}

	private ReactiveNearCacheCommands() {
	}

	/**
	 * Runs a reactive command through the near cache.
	 * @param cache the near cache
	 * @param method the command
	 * @param args its arguments
	 * @param next the commands behind
	 * @return the command's publisher
	 * @throws Throwable what the command throws when it is called
	 */
	static @Nullable Object invoke(ReactiveNearCache cache, Method method, @Nullable Object[] args, Next next)
			throws Throwable {
		if (args == null || args.length == 0) {
			return next.invoke(method, args);
		}
		String name = method.getName();
		if (name.equals("get") && args.length == 1 && args[0] instanceof ByteBuffer key && cache.covers(key)) {
			return get(cache, method, key, next);
		}
		if (name.equals("mget") && args.length == 1 && args[0] instanceof Object[] keys && allBuffers(keys)) {
			return mget(cache, method, keys, next);
		}
		if (READS.contains(name)) {
			return next.invoke(method, args);
		}
		List<ByteBuffer> keys = coveredKeys(cache, args);
		Object result = next.invoke(method, args);
		if (keys.isEmpty()) {
			return result;
		}
		if (result instanceof Mono<?> mono) {
			return Mono.defer(() -> {
				keys.forEach(cache::written);
				return mono;
			}).doFinally((signal) -> keys.forEach(cache::written));
		}
		if (result instanceof Flux<?> flux) {
			return Flux.defer(() -> {
				keys.forEach(cache::written);
				return flux;
			}).doFinally((signal) -> keys.forEach(cache::written));
		}
		keys.forEach(cache::written);
		return result;
	}

	private static Object get(ReactiveNearCache cache, Method method, ByteBuffer key, Next next) {
		// Looked up when subscribed, not when assembled: a Mono kept and subscribed later
		// reads what is current then.
		return Mono.defer(() -> {
			ByteBuffer hit = cache.lookup(key);
			if (hit != null) {
				return Mono.just(hit);
			}
			long ticket = cache.ticket(key);
			try {
				@SuppressWarnings("unchecked")
				Mono<ByteBuffer> read = (Mono<ByteBuffer>) next.invoke(method, new Object[] { key });
				return read.doOnNext((value) -> cache.offer(key, ticket, value.duplicate()));
			}
			catch (Throwable ex) {
				return Mono.error(ex);
			}
		});
	}

	@SuppressWarnings("unchecked")
	private static Object mget(ReactiveNearCache cache, Method method, Object[] keys, Next next) throws Throwable {
		List<@Nullable ByteBuffer> values = new ArrayList<>(keys.length);
		List<Integer> missing = new ArrayList<>();
		int hits = 0;
		for (int i = 0; i < keys.length; i++) {
			ByteBuffer key = (ByteBuffer) keys[i];
			ByteBuffer value = cache.covers(key) ? cache.peek(key) : null;
			values.add(value);
			if (value == null) {
				missing.add(i);
			}
			else {
				hits++;
			}
		}
		int hitCount = hits;
		if (missing.isEmpty()) {
			cache.count(true, hitCount);
			return Flux.fromIterable(pairs(keys, values));
		}
		return Flux.defer(() -> {
			Object[] misses = new Object[missing.size()];
			long[] tickets = new long[misses.length];
			int covered = 0;
			for (int i = 0; i < misses.length; i++) {
				ByteBuffer key = (ByteBuffer) keys[missing.get(i)];
				misses[i] = key;
				tickets[i] = cache.ticket(key);
				covered += cache.covers(key) ? 1 : 0;
			}
			int coveredCount = covered;
			Flux<KeyValue<ByteBuffer, ByteBuffer>> fetched;
			try {
				fetched = (Flux<KeyValue<ByteBuffer, ByteBuffer>>) next.invoke(method, new Object[] { misses });
			}
			catch (Throwable ex) {
				return Flux.error(ex);
			}
			return fetched.collectList().flatMapIterable((pairs) -> {
				for (int i = 0; i < misses.length && i < pairs.size(); i++) {
					KeyValue<ByteBuffer, ByteBuffer> pair = pairs.get(i);
					ByteBuffer value = pair.getValueOrElse(null);
					values.set(missing.get(i), value);
					ByteBuffer key = (ByteBuffer) misses[i];
					if (value != null && cache.covers(key)) {
						cache.offer(key, tickets[i], value.duplicate());
					}
				}
				cache.count(true, hitCount);
				cache.count(false, coveredCount);
				return pairs(keys, values);
			});
		});
	}

	private static List<KeyValue<ByteBuffer, ByteBuffer>> pairs(Object[] keys, List<@Nullable ByteBuffer> values) {
		List<KeyValue<ByteBuffer, ByteBuffer>> pairs = new ArrayList<>(keys.length);
		for (int i = 0; i < keys.length; i++) {
			pairs.add(KeyValue.fromNullable((ByteBuffer) keys[i], values.get(i)));
		}
		return pairs;
	}

	private static boolean allBuffers(Object[] keys) {
		for (Object key : keys) {
			if (!(key instanceof ByteBuffer)) {
				return false;
			}
		}
		return keys.length > 0;
	}

	/**
	 * The covered keys among a command's arguments: a key, an array of keys, a map's keys
	 * (values do no harm).
	 */
	private static List<ByteBuffer> coveredKeys(ReactiveNearCache cache, Object[] args) {
		List<ByteBuffer> keys = new ArrayList<>();
		for (Object arg : args) {
			if (arg instanceof ByteBuffer key) {
				addIfCovered(cache, keys, key);
			}
			else if (arg instanceof Object[] array) {
				for (Object key : array) {
					if (key instanceof ByteBuffer buffer) {
						addIfCovered(cache, keys, buffer);
					}
				}
			}
			else if (arg instanceof Map<?, ?> map) {
				for (Object key : map.keySet()) {
					if (key instanceof ByteBuffer buffer) {
						addIfCovered(cache, keys, buffer);
					}
				}
			}
		}
		return keys;
	}

	private static void addIfCovered(ReactiveNearCache cache, List<ByteBuffer> keys, ByteBuffer key) {
		if (cache.covers(key)) {
			keys.add(key);
		}
	}

}
