package dev.slotwise.internal.multikey;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.slotwise.internal.routing.SlotHash;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisStringCommands;

/**
 * Puts the engine in front of Spring Data Redis's string and key commands of one
 * connection: cross-slot {@code mGet}, {@code mSet}, {@code del}, {@code unlink} and
 * {@code exists} go to the engine, everything else (and same-slot calls, and calls inside
 * a pipeline or transaction) to Spring Data Redis unchanged. A same-slot read or removal
 * that a slot migration makes fail unexecuted ({@code TRYAGAIN}, or redirects the client
 * gave up on) runs again on the engine.
 * <p>
 * A dynamic proxy rather than a hand-written delegate: both interfaces have dozens of
 * methods and gain more in every Spring Data Redis release, which a proxy forwards
 * without drift.
 */
public final class MultiKeyCommands {

	/** The intercepted methods, resolved once; immutable. */
	private static final Resolution RESOLVED = Resolution.resolve();

	private final Supplier<MultiKeyEngine> engine;

	private final BooleanSupplier bypass;

	private @Nullable RedisStringCommands strings;

	private @Nullable RedisKeyCommands keys;

	/**
	 * Creates the engine's layer of one connection.
	 * @param engine supplies the engine when a cross-slot call needs it
	 * @param bypass whether the connection is pipelining or queueing, when Spring Data
	 * Redis must keep the call
	 */
	public MultiKeyCommands(Supplier<MultiKeyEngine> engine, BooleanSupplier bypass) {
		requireInterceptedMethods();
		this.engine = engine;
		this.bypass = bypass;
	}

	/**
	 * Checks that every method Slotwise intercepts exists in the Spring Data Redis on the
	 * class path.
	 * @return the intercepted methods
	 * @throws IllegalStateException naming each method that is missing or has another
	 * return type
	 */
	public static Set<Method> requireInterceptedMethods() {
		if (!RESOLVED.unresolved().isEmpty()) {
			throw new IllegalStateException("Slotwise cannot route multi-key commands with this Spring Data Redis "
					+ "version: " + String.join("; ", RESOLVED.unresolved())
					+ ". Set slotwise.multikey.enabled=false or use a "
					+ "Spring Data Redis version Slotwise supports.");
		}
		return RESOLVED.intercepted().keySet();
	}

	/**
	 * Returns the connection's string commands with the engine in front, creating them
	 * once per connection.
	 * @param delegate supplies Spring Data Redis's own string commands of the connection
	 */
	public RedisStringCommands strings(Supplier<RedisStringCommands> delegate) {
		RedisStringCommands commands = this.strings;
		if (commands == null) {
			commands = proxy(RedisStringCommands.class, delegate.get());
			this.strings = commands;
		}
		return commands;
	}

	/**
	 * Returns the connection's key commands with the engine in front, creating them once
	 * per connection.
	 * @param delegate supplies Spring Data Redis's own key commands of the connection
	 */
	public RedisKeyCommands keys(Supplier<RedisKeyCommands> delegate) {
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
		Intercepted intercepted = RESOLVED.intercepted().get(method);
		if (intercepted == null || this.bypass.getAsBoolean()) {
			return forward(delegate, method, args);
		}
		return switch (intercepted) {
			case MGET -> mGet(delegate, method, (byte[][]) args[0]);
			case MSET -> mSet(delegate, method, args);
			case DEL -> count(MultiKeyCommand.DEL, delegate, method, (byte[][]) args[0]);
			case UNLINK -> count(MultiKeyCommand.UNLINK, delegate, method, (byte[][]) args[0]);
			case EXISTS -> count(MultiKeyCommand.EXISTS, delegate, method, (byte[][]) args[0]);
		};
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

	private @Nullable Object count(MultiKeyCommand command, Object delegate, Method method, byte @Nullable [][] keys)
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
		return this.engine.get().count(command, keys);
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
	 * Lets a same-slot call fall through to the engine when the server refused it without
	 * executing it during a slot migration: {@code TRYAGAIN} (its keys split between the
	 * two nodes), which neither client retries, or a redirect the client gave up
	 * following ({@code MOVED}/{@code ASK} after its own attempts; Jedis keeps the last
	 * one as a suppressed exception). The engine then reads or removes the keys one by
	 * one, following the redirects itself. {@code mSet} does not fall through: one
	 * {@code MSET} is atomic, key-by-key writes would not be.
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
		return Redirect.isRedirect(failure.getMessage());
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

	/**
	 * The intercepted methods of Spring Data Redis's interfaces, resolved once by
	 * signature. Should a Spring Data Redis release rename or re-type one,
	 * {@link #requireInterceptedMethods()} fails when Slotwise is configured, naming the
	 * method, instead of interception silently switching off.
	 */
	private record Resolution(Map<Method, Intercepted> intercepted, List<String> unresolved) {

		static Resolution resolve() {
			Map<Method, Intercepted> intercepted = new HashMap<>();
			List<String> unresolved = new ArrayList<>();
			for (Intercepted candidate : Intercepted.values()) {
				try {
					Method method = candidate.owner.getMethod(candidate.name, candidate.parameter);
					if (method.getReturnType() != candidate.returns) {
						unresolved.add(candidate.signature() + " returns " + method.getReturnType().getName());
					}
					else {
						intercepted.put(method, candidate);
					}
				}
				catch (NoSuchMethodException ex) {
					unresolved.add(candidate.signature() + " does not exist");
				}
			}
			return new Resolution(Map.copyOf(intercepted), List.copyOf(unresolved));
		}

	}

	/**
	 * The Spring Data Redis methods the engine serves, by signature.
	 */
	enum Intercepted {

		/** {@code List<byte[]> RedisStringCommands.mGet(byte[]...)}. */
		MGET(RedisStringCommands.class, "mGet", byte[][].class, List.class),

		/** {@code Boolean RedisStringCommands.mSet(Map<byte[], byte[]>)}. */
		MSET(RedisStringCommands.class, "mSet", Map.class, Boolean.class),

		/** {@code Long RedisKeyCommands.del(byte[]...)}. */
		DEL(RedisKeyCommands.class, "del", byte[][].class, Long.class),

		/** {@code Long RedisKeyCommands.unlink(byte[]...)}. */
		UNLINK(RedisKeyCommands.class, "unlink", byte[][].class, Long.class),

		/** {@code Long RedisKeyCommands.exists(byte[]...)}. */
		EXISTS(RedisKeyCommands.class, "exists", byte[][].class, Long.class);

		private final Class<?> owner;

		private final String name;

		private final Class<?> parameter;

		private final Class<?> returns;

		Intercepted(Class<?> owner, String name, Class<?> parameter, Class<?> returns) {
			this.owner = owner;
			this.name = name;
			this.parameter = parameter;
			this.returns = returns;
		}

		String signature() {
			return this.returns.getSimpleName() + " " + this.owner.getSimpleName() + "." + this.name + "("
					+ this.parameter.getSimpleName() + ")";
		}

	}

}
