package dev.slotwise.internal.pipeline;

import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;

import org.springframework.data.redis.connection.RedisHashCommands;
import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisSetCommands;
import org.springframework.data.redis.connection.RedisStringCommands;
import org.springframework.data.redis.connection.convert.Converters;

/**
 * The most frequent commands written straight onto the Jedis pipeline, with the
 * conversion Spring Data Redis's {@code Jedis*Commands} apply to them
 * ({@code Converters.stringToBoolean} for {@code SET}, {@code Converters.toBoolean} for
 * {@code HSET} and {@code EXPIRE}, the raw reply otherwise).
 * <p>
 * Why: in pipeline mode Spring Data Redis builds a Spring AOP proxy of the Jedis pipeline
 * for every command ({@code JedisInvoker.createCommands}), which cost more than the
 * command's share of the round trip (measured with {@code PipelineBenchmark}). Every
 * other command goes through Spring Data Redis; the randomized differential test holds
 * both paths to the results of the same commands run one by one and over Lettuce.
 */
final class FastCommands {

	/** The calls with a fast path, resolved once by signature; immutable. */
	private static final Map<Method, Fast> FAST = resolve();

	private static Map<Method, Fast> resolve() {
		Map<Method, Fast> fast = new HashMap<>();
		add(fast, RedisStringCommands.class, "get", (p, a) -> p.get(b(a[0])), null, byte[].class);
		add(fast, RedisStringCommands.class, "set", (p, a) -> p.set(b(a[0]), b(a[1])),
				(reply) -> Converters.stringToBoolean((String) reply), byte[].class, byte[].class);
		add(fast, RedisStringCommands.class, "incr", (p, a) -> p.incr(b(a[0])), null, byte[].class);
		add(fast, RedisStringCommands.class, "incrBy", (p, a) -> p.incrBy(b(a[0]), (Long) a[1]), null, byte[].class,
				long.class);
		add(fast, RedisStringCommands.class, "decr", (p, a) -> p.decr(b(a[0])), null, byte[].class);
		add(fast, RedisHashCommands.class, "hSet", (p, a) -> p.hset(b(a[0]), b(a[1]), b(a[2])),
				(reply) -> Converters.toBoolean((Long) reply), byte[].class, byte[].class, byte[].class);
		add(fast, RedisHashCommands.class, "hGet", (p, a) -> p.hget(b(a[0]), b(a[1])), null, byte[].class,
				byte[].class);
		add(fast, RedisSetCommands.class, "sAdd", (p, a) -> p.sadd(b(a[0]), (byte[][]) a[1]), null, byte[].class,
				byte[][].class);
		add(fast, RedisKeyCommands.class, "expire", (p, a) -> p.expire(b(a[0]), (Long) a[1]),
				(reply) -> Converters.toBoolean((Long) reply), byte[].class, long.class);
		return Map.copyOf(fast);
	}

	private FastCommands() {
	}

	private static void add(Map<Method, Fast> fast, Class<?> group, String name,
			BiFunction<AbstractPipeline, Object[], Response<?>> send, @Nullable Function<Object, Object> convert,
			Class<?>... types) {
		try {
			fast.put(group.getMethod(name, types), new Fast(send, (convert != null) ? convert : Function.identity()));
		}
		catch (NoSuchMethodException ex) {
			// A Spring Data Redis release without this signature: the command takes
			// Spring Data Redis's path.
		}
	}

	private static byte[] b(Object arg) {
		return (byte[]) arg;
	}

	/**
	 * Returns the fast path of a call, or {@code null} when Spring Data Redis must run
	 * it: another method, a null argument (Spring Data Redis rejects it with its own
	 * message), or an expiry Spring Data Redis sends as {@code PEXPIRE}.
	 */
	static @Nullable Fast of(Method method, @Nullable Object @Nullable [] args) {
		Fast fast = FAST.get(method);
		if (fast == null || args == null) {
			return null;
		}
		for (Object arg : args) {
			if (arg == null || (arg instanceof byte[][] values && hasNull(values))) {
				return null;
			}
		}
		if (method.getName().equals("expire") && (Long) args[1] > Integer.MAX_VALUE) {
			return null;
		}
		return fast;
	}

	private static boolean hasNull(byte[][] values) {
		for (byte[] value : values) {
			if (value == null) {
				return true;
			}
		}
		return false;
	}

	/**
	 * A command's write onto the pipeline and the conversion of its reply.
	 */
	record Fast(BiFunction<AbstractPipeline, Object[], Response<?>> send, Function<Object, Object> convert) {
	}

}
