package dev.slotwise.internal.pipeline;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.slotwise.internal.routing.SlotHash;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisStringCommands;
import org.springframework.data.redis.connection.stream.Record;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamReadOptions;

/**
 * Finds the keys of a queued Spring Data Redis call and refuses, when it is queued, what
 * cannot be pipelined on a cluster. Spring Data Redis's interfaces put the key first in
 * almost every method; the exceptions are listed by name here. A method whose first
 * argument is no key and that is not listed is refused rather than guessed at.
 */
public final class CommandRouting {

	/**
	 * Blocking, cursor-based, cluster-wide or connection-state commands: no place in a
	 * cluster pipeline.
	 */
	private static final Set<String> REFUSED = Set.of("keys", "scan", "randomKey", "move", "bLPop", "bRPop",
			"bRPopLPush", "bLMove", "bZPopMin", "bZPopMax", "hScan", "sScan", "zScan", "watch", "unwatch", "multi",
			"exec", "discard", "select");

	/**
	 * Methods whose {@code byte[]} and {@code byte[][]} arguments are all keys
	 * (destination keys included).
	 */
	private static final Set<String> ALL_BYTES_ARE_KEYS = Set.of("mGet", "del", "unlink", "exists", "touch", "sInter",
			"sInterStore", "sInterCard", "sUnion", "sUnionStore", "sDiff", "sDiffStore", "zUnion", "zUnionStore",
			"zUnionWithScores", "zInter", "zInterStore", "zInterWithScores", "zInterCard", "zDiff", "zDiffStore",
			"zDiffWithScores", "pfCount", "pfMerge", "bitOp");

	/** Methods whose first two arguments are keys (source and destination). */
	private static final Set<String> TWO_KEYS = Set.of("rename", "renameNX", "sMove", "rPopLPush", "lMove", "copy",
			"geoSearchStore", "zRangeStoreByLex", "zRangeStoreByScore", "zRangeStoreRevByLex", "zRangeStoreRevByScore");

	/**
	 * The multi-key engine's commands: cross-slot calls of these run on it, one result in
	 * their position.
	 */
	private static final Set<String> ENGINE = Set.of("mGet", "del", "unlink", "exists", "mSet");

	private CommandRouting() {
	}

	/**
	 * Plans a call for the pipeline.
	 * @param index its position in the pipeline
	 * @param group the interface the method belongs to
	 * @param method the method
	 * @param args the arguments
	 * @return the queued command
	 * @throws InvalidDataAccessApiUsageException naming the command when it cannot be
	 * pipelined on a cluster
	 */
	static QueuedCommand plan(int index, Class<?> group, Method method, @Nullable Object @Nullable [] args) {
		String name = method.getName();
		if (REFUSED.contains(name)) {
			throw refused(group, method,
					"it blocks, iterates with a cursor, spans every node or changes connection " + "state");
		}
		List<byte[]> keys = keys(group, method, (args != null) ? args : new Object[0]);
		if (keys.isEmpty()) {
			throw refused(group, method, "it has no key to choose a node by");
		}
		int slot = SlotHash.slot(keys.get(0));
		boolean crossSlot = false;
		for (int i = 1; i < keys.size() && !crossSlot; i++) {
			crossSlot = SlotHash.slot(keys.get(i)) != slot;
		}
		if (crossSlot && !runsOnEngine(group, method)) {
			throw refused(group, method, "its keys span hash slots (only mGet, mSet, del, unlink and exists may)");
		}
		return new QueuedCommand(index, group, method, args, slot, crossSlot, keys.get(0));
	}

	/**
	 * Returns the keys of a Spring Data Redis call, as the pipeline routes by them;
	 * cluster transactions use the same reading.
	 * @param group the interface the method belongs to
	 * @param method the method
	 * @param args the arguments
	 * @return the keys (destination keys included), empty when the method has none
	 * @throws InvalidDataAccessApiUsageException when a key is not a {@code byte[]} or
	 * the call blocks
	 */
	public static List<byte[]> keysOf(Class<?> group, Method method, @Nullable Object @Nullable [] args) {
		return keys(group, method, (args != null) ? args : new Object[0]);
	}

	private static boolean runsOnEngine(Class<?> group, Method method) {
		Class<?>[] types = parameterTypes(method);
		return (group == RedisStringCommands.class || group == RedisKeyCommands.class)
				&& ENGINE.contains(method.getName()) && types.length == 1
				&& (types[0] == byte[][].class || types[0] == Map.class);
	}

	private static List<byte[]> keys(Class<?> group, Method method, @Nullable Object[] args) {
		String name = method.getName();
		Class<?>[] types = parameterTypes(method);
		List<byte[]> keys = new ArrayList<>(2);
		if (ALL_BYTES_ARE_KEYS.contains(name)) {
			for (int i = 0; i < types.length; i++) {
				if (types[i] == byte[].class) {
					keys.add(key(group, method, args[i]));
				}
				else if (types[i] == byte[][].class) {
					byte[][] many = (byte[][]) args[i];
					if (many == null) {
						throw new IllegalArgumentException("Keys of " + name + " must not be null");
					}
					for (byte[] key : many) {
						keys.add(key(group, method, key));
					}
				}
			}
			return keys;
		}
		if (name.equals("mSet") || name.equals("mSetNX")) {
			if (!(args[0] instanceof Map<?, ?> tuples)) {
				throw new IllegalArgumentException("Tuples of " + name + " must not be null");
			}
			for (Object key : tuples.keySet()) {
				keys.add(key(group, method, key));
			}
			return keys;
		}
		if (name.equals("xRead") || name.equals("xReadGroup")) {
			for (Object arg : args) {
				if (arg instanceof StreamReadOptions options && options.isBlocking()) {
					throw refused(group, method, "it blocks (StreamReadOptions.block)");
				}
				if (arg instanceof StreamOffset<?>[] offsets) {
					for (StreamOffset<?> offset : offsets) {
						keys.add(key(group, method, offset.getKey()));
					}
				}
			}
			return keys;
		}
		if (types.length > 0 && args[0] instanceof Record<?, ?> record) {
			// xAdd(MapRecord, …): the stream is the record's
			keys.add(key(group, method, record.getStream()));
			return keys;
		}
		if (types.length == 0 || types[0] != byte[].class) {
			return keys;
		}
		keys.add(key(group, method, args[0]));
		if (TWO_KEYS.contains(name) && types.length > 1 && types[1] == byte[].class) {
			keys.add(key(group, method, args[1]));
		}
		else if (name.equals("sort") && types.length == 3 && types[2] == byte[].class) {
			keys.add(key(group, method, args[2]));
		}
		return keys;
	}

	/**
	 * {@link Method#getParameterTypes()} copies a small array on every call, next to a
	 * reflective invocation per queued command: no cache (a static one would be state
	 * shared by every application in the JVM).
	 */
	private static Class<?>[] parameterTypes(Method method) {
		return method.getParameterTypes();
	}

	private static byte[] key(Class<?> group, Method method, @Nullable Object key) {
		if (key instanceof byte[] bytes) {
			return bytes;
		}
		if (key == null) {
			throw new IllegalArgumentException(
					"A key of " + group.getSimpleName() + "." + method.getName() + " must not be null");
		}
		throw refused(group, method, "a key is not a byte[] but " + key.getClass().getName());
	}

	private static InvalidDataAccessApiUsageException refused(Class<?> group, Method method, String why) {
		return new InvalidDataAccessApiUsageException(
				group.getSimpleName() + "." + method.getName() + " cannot be pipelined on a Redis Cluster: " + why);
	}

}
