package dev.slotwise.internal.transaction;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.connection.RedisScriptingCommands;

/**
 * Refuses, before anything is sent, a script ({@code eval}, {@code evalSha}) whose keys
 * hash to more than one slot: on a cluster the server would answer {@code CROSSSLOT}
 * after the script reached a node (or, for keys the node serves none of, {@code MOVED}).
 * One instance per connection; not thread-safe, like the connection.
 */
public final class ScriptSlotCheck {

	private @Nullable RedisScriptingCommands direct;

	private @Nullable RedisScriptingCommands checked;

	/**
	 * Returns scripting commands that check a script's keys and then run it on the given
	 * ones.
	 * @param direct the connection's scripting commands
	 * @return the checking commands
	 */
	public RedisScriptingCommands wrap(RedisScriptingCommands direct) {
		RedisScriptingCommands checked = this.checked;
		if (checked != null && this.direct == direct) {
			return checked;
		}
		checked = (RedisScriptingCommands) Proxy.newProxyInstance(RedisScriptingCommands.class.getClassLoader(),
				new Class<?>[] { RedisScriptingCommands.class }, (proxy, method, args) -> {
					if (method.getDeclaringClass() == Object.class) {
						return switch (method.getName()) {
							case "equals" -> args != null && proxy == args[0];
							case "hashCode" -> System.identityHashCode(proxy);
							default -> "Slotwise slot-checked " + direct;
						};
					}
					List<byte[]> keys = TransactionKeys.scriptKeys(method, args);
					if (keys != null) {
						try {
							TransactionKeys.slotOf(keys);
						}
						catch (TransactionKeys.CrossSlot ex) {
							throw new InvalidDataAccessApiUsageException("A script's keys must hash to one slot on a "
									+ "Redis Cluster, but its " + ex.description()
									+ " (use a hash tag, e.g. {order:42}:items); nothing was sent");
						}
					}
					try {
						return method.invoke(direct, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
		this.direct = direct;
		this.checked = checked;
		return checked;
	}

}
