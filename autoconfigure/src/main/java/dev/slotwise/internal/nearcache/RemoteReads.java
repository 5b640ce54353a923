package dev.slotwise.internal.nearcache;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.function.BooleanSupplier;

import dev.slotwise.internal.observed.Observed;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisStringCommands;

/**
 * The layer just behind {@link NearCacheCommands}: it sees only what the near cache sends
 * on, so the {@code get} and {@code mGet} of covered keys it sees are the reads that
 * missed, and it observes them. A hit never reaches it and costs nothing more. Every
 * other command passes through.
 */
public final class RemoteReads {

	private RemoteReads() {
	}

	/**
	 * Wraps string commands.
	 * @param cache the near cache, which tells covered keys
	 * @param next the commands behind
	 * @param observer what watches the reads sent to Redis
	 * @param bypass whether the connection is pipelining or queueing a transaction right
	 * now
	 * @return the commands to put behind the near cache
	 */
	public static RedisStringCommands strings(NearCache cache, RedisStringCommands next, RemoteReadObserver observer,
			BooleanSupplier bypass) {
		return RedisStringCommands.class.cast(Proxy.newProxyInstance(RedisStringCommands.class.getClassLoader(),
				new Class<?>[] { RedisStringCommands.class }, (proxy, method, args) -> {
					if (method.getDeclaringClass() == Object.class) {
						return switch (method.getName()) {
							case "equals" -> proxy == args[0];
							case "hashCode" -> System.identityHashCode(proxy);
							default -> "Slotwise near cache remote reads " + next;
						};
					}
					int covered = (args != null && args.length == 1 && !bypass.getAsBoolean())
							? covered(cache, method.getName(), args[0]) : 0;
					if (covered == 0) {
						return invoke(method, next, args);
					}
					Observed observed = observer.start(method.getName().equals("get") ? "get" : "mget", covered);
					Object result;
					try (Observed.Scope scope = observed.open()) {
						result = invoke(method, next, args);
					}
					catch (Throwable ex) {
						observed.end(Observed.FAILURE, ex);
						throw ex;
					}
					observed.end(Observed.SUCCESS, null);
					return result;
				}));
	}

	/** The covered keys of a {@code get} or {@code mGet}; 0 for any other command. */
	private static int covered(NearCache cache, String method, @Nullable Object arg) {
		if (method.equals("get") && arg instanceof byte[] key) {
			return cache.coversTemplateKey(key) ? 1 : 0;
		}
		if (method.equals("mGet") && arg instanceof byte[][] keys) {
			int covered = 0;
			for (byte[] key : keys) {
				if (key != null && cache.coversTemplateKey(key)) {
					covered++;
				}
			}
			return covered;
		}
		return 0;
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
