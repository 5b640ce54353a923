package dev.slotwise.multikey;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.slotwise.routing.SlotHash;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisStringCommands;

/**
 * Puts the engine in front of Spring Data Redis's string and key commands of one connection: cross-slot
 * {@code mGet}, {@code mSet}, {@code del}, {@code unlink} and {@code exists} go to the engine, everything else (and
 * same-slot calls, and calls inside a pipeline or transaction) to Spring Data Redis unchanged. A same-slot read or
 * removal that a slot migration makes fail unexecuted ({@code TRYAGAIN}, or redirects the client gave up on) runs
 * again on the engine.
 * <p>
 * A dynamic proxy rather than a hand-written delegate: both interfaces have dozens of methods and gain more in
 * every Spring Data Redis release, which a proxy forwards without drift.
 */
final class MultiKeyCommands {

	private final Supplier<MultiKeyEngine> engine;

	private final BooleanSupplier bypass;

	private @Nullable RedisStringCommands strings;

	private @Nullable RedisKeyCommands keys;

	/**
	 * @param engine supplies the engine when a cross-slot call needs it
	 * @param bypass whether the connection is pipelining or queueing, when Spring Data Redis must keep the call
	 */
	MultiKeyCommands(Supplier<MultiKeyEngine> engine, BooleanSupplier bypass) {
		this.engine = engine;
		this.bypass = bypass;
	}

	/**
	 * Returns the connection's string commands with the engine in front, creating them once per connection.
	 * @param delegate supplies Spring Data Redis's own string commands of the connection
	 */
	RedisStringCommands strings(Supplier<RedisStringCommands> delegate) {
		RedisStringCommands commands = this.strings;
		if (commands == null) {
			commands = proxy(RedisStringCommands.class, delegate.get());
			this.strings = commands;
		}
		return commands;
	}

	/**
	 * Returns the connection's key commands with the engine in front, creating them once per connection.
	 * @param delegate supplies Spring Data Redis's own key commands of the connection
	 */
	RedisKeyCommands keys(Supplier<RedisKeyCommands> delegate) {
		RedisKeyCommands commands = this.keys;
		if (commands == null) {
			commands = proxy(RedisKeyCommands.class, delegate.get());
			this.keys = commands;
		}
		return commands;
	}

	private <T> T proxy(Class<T> type, T delegate) {
		InvocationHandler handler = (proxy, method, args) -> invoke(delegate, proxy, method, args);
		return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, handler));
	}

	private @Nullable Object invoke(Object delegate, Object proxy, Method method, @Nullable Object @Nullable [] args)
			throws Throwable {
		if (method.getDeclaringClass() == Object.class) {
			return switch (method.getName()) {
				case "equals" -> proxy == args[0];
				case "hashCode" -> System.identityHashCode(proxy);
				default -> "Slotwise multi-key " + delegate;
			};
		}
		Class<?>[] types = method.getParameterTypes();
		if (types.length == 1 && !this.bypass.getAsBoolean()) {
			String name = method.getName();
			if (types[0] == byte[][].class) {
				switch (name) {
					case "mGet":
						return mGet(delegate, method, (byte[][]) args[0]);
					case "del":
						return count(MultiKeyOp.DEL, delegate, method, (byte[][]) args[0]);
					case "unlink":
						return count(MultiKeyOp.UNLINK, delegate, method, (byte[][]) args[0]);
					case "exists":
						return count(MultiKeyOp.EXISTS, delegate, method, (byte[][]) args[0]);
					default:
						break;
				}
			}
			else if (types[0] == Map.class && name.equals("mSet")) {
				return mSet(delegate, method, args);
			}
		}
		return forward(delegate, method, args);
	}

	private @Nullable Object mGet(Object delegate, Method method, byte @Nullable [][] keys) throws Throwable {
		if (checkKeys(keys).length == 0) {
			return new ArrayList<>();
		}
		if (isSingleSlot(keys)) {
			try {
				return forward(delegate, method, new Object[] { keys });
			}
			catch (DataAccessException ex) {
				rethrowUnlessRefusedDuringMigration(ex);
			}
		}
		return new ArrayList<>(this.engine.get().mGet(keys));
	}

	private @Nullable Object count(MultiKeyOp op, Object delegate, Method method, byte @Nullable [][] keys)
			throws Throwable {
		if (checkKeys(keys).length == 0) {
			return 0L;
		}
		if (isSingleSlot(keys)) {
			try {
				return forward(delegate, method, new Object[] { keys });
			}
			catch (DataAccessException ex) {
				rethrowUnlessRefusedDuringMigration(ex);
			}
		}
		return this.engine.get().count(op, keys);
	}

	private @Nullable Object mSet(Object delegate, Method method, @Nullable Object[] args) throws Throwable {
		if (!(args[0] instanceof Map<?, ?> tuples)) {
			throw new IllegalArgumentException("'tuples' must not be null");
		}
		if (tuples.isEmpty()) {
			return Boolean.TRUE;
		}
		byte[][] keys = new byte[tuples.size()][];
		byte[][] values = new byte[tuples.size()][];
		int i = 0;
		for (Map.Entry<?, ?> tuple : tuples.entrySet()) {
			if (!(tuple.getKey() instanceof byte[] key)) {
				throw new IllegalArgumentException("'tuples' must not contain null keys");
			}
			if (!(tuple.getValue() instanceof byte[] value)) {
				throw new IllegalArgumentException("'tuples' must not contain null values");
			}
			keys[i] = key;
			values[i++] = value;
		}
		if (isSingleSlot(keys)) {
			return forward(delegate, method, args);
		}
		this.engine.get().mSet(keys, values);
		return Boolean.TRUE;
	}

	/**
	 * Lets a same-slot call fall through to the engine when the server refused it without executing it during a slot
	 * migration: {@code TRYAGAIN} (its keys split between the two nodes), which neither client retries, or a redirect
	 * the client gave up following ({@code MOVED}/{@code ASK} after its own attempts; Jedis keeps the last one as a
	 * suppressed exception). The engine then reads or removes the keys one by one, following the redirects itself.
	 * {@code mSet} does not fall through: one {@code MSET} is atomic, key-by-key writes would not be.
	 */
	private static void rethrowUnlessRefusedDuringMigration(DataAccessException ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (isMigrationRefusal(cause)) {
				return;
			}
			for (Throwable suppressed : cause.getSuppressed()) {
				if (isMigrationRefusal(suppressed)) {
					return;
				}
			}
		}
		throw ex;
	}

	private static boolean isMigrationRefusal(Throwable failure) {
		String message = failure.getMessage();
		return message != null
				&& (message.startsWith(MultiKeyEngine.TRYAGAIN) || message.startsWith(MultiKeyEngine.ASK)
						|| message.startsWith(MultiKeyEngine.MOVED));
	}

	private static byte[][] checkKeys(byte @Nullable [][] keys) {
		if (keys == null) {
			throw new IllegalArgumentException("'keys' must not be null");
		}
		for (int i = 0; i < keys.length; i++) {
			if (keys[i] == null) {
				throw new IllegalArgumentException("'keys' must not contain null elements, found one at index " + i);
			}
		}
		return keys;
	}

	private static boolean isSingleSlot(byte[][] keys) {
		int slot = SlotHash.slot(keys[0]);
		for (int i = 1; i < keys.length; i++) {
			if (SlotHash.slot(keys[i]) != slot) {
				return false;
			}
		}
		return true;
	}

	private static @Nullable Object forward(Object delegate, Method method, @Nullable Object @Nullable [] args)
			throws Throwable {
		try {
			return method.invoke(delegate, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
