package dev.slotwise.internal.pipeline;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The command groups of one pipeline or transaction: a proxy of each Spring Data Redis
 * command interface ({@code RedisStringCommands}, ...) whose calls go to one handler,
 * created on first use and kept. Not thread-safe, like the connection it serves.
 */
public final class CommandProxies {

	private final Handler handler;

	private final Map<Class<?>, Object> proxies = new HashMap<>();

	/**
	 * Creates the command groups of one pipeline or transaction.
	 * @param handler handles every call of every group
	 */
	public CommandProxies(Handler handler) {
		this.handler = handler;
	}

	/**
	 * Returns the proxy of a command group.
	 * @param <T> the interface
	 * @param group the interface, e.g. {@code RedisStringCommands.class}
	 * @return the proxy, the same for every call with the same group
	 */
	public <T> T get(Class<T> group) {
		Object proxy = this.proxies.get(group);
		if (proxy == null) {
			InvocationHandler invocations = (target, method, args) -> this.handler.handle(group, target, method, args);
			proxy = Proxy.newProxyInstance(group.getClassLoader(), new Class<?>[] { group }, invocations);
			this.proxies.put(group, proxy);
		}
		return group.cast(proxy);
	}

	/**
	 * Handles a call of a command group's proxy.
	 */
	@FunctionalInterface
	public interface Handler {

		/**
		 * Handles a call.
		 * @param group the command group
		 * @param proxy the proxy called
		 * @param method the method called
		 * @param args its arguments
		 * @return the call's result
		 * @throws Throwable what the call throws
		 */
		@Nullable Object handle(Class<?> group, Object proxy, Method method, @Nullable Object @Nullable [] args) throws Throwable;

	}

}
