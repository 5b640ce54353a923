package dev.slotwise.internal.transaction;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import dev.slotwise.internal.pipeline.CommandRouting;
import dev.slotwise.internal.routing.SlotHash;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisScriptingCommands;

/**
 * The keys of a call, by which a transaction's slot is chosen and checked: the pipeline's
 * reading of Spring Data Redis's interfaces, plus scripts, whose keys are the first
 * {@code numKeys} of {@code keysAndArgs}.
 */
final class TransactionKeys {

	private TransactionKeys() {
	}

	static List<byte[]> of(Class<?> group, Method method, @Nullable Object @Nullable [] args) {
		if (group == RedisScriptingCommands.class) {
			List<byte[]> keys = scriptKeys(method, args);
			return (keys != null) ? keys : List.of();
		}
		return CommandRouting.keysOf(group, method, args);
	}

	/**
	 * Returns the keys of {@code eval}/{@code evalSha}, or {@code null} for the other
	 * scripting methods.
	 */
	static @Nullable List<byte[]> scriptKeys(Method method, @Nullable Object @Nullable [] args) {
		String name = method.getName();
		if (!(name.equals("eval") || name.equals("evalSha")) || args == null || args.length != 4
				|| !(args[2] instanceof Integer numKeys) || !(args[3] instanceof byte[][] keysAndArgs)) {
			return null;
		}
		return Arrays.asList(keysAndArgs).subList(0, Math.max(0, Math.min(numKeys, keysAndArgs.length)));
	}

	/**
	 * Returns the slot all keys hash to, or {@code -1} when there are none.
	 * @throws CrossSlot when they hash to more than one
	 */
	static int slotOf(List<byte[]> keys) {
		int slot = -1;
		byte[] first = null;
		for (byte[] key : keys) {
			int keySlot = SlotHash.slot(key);
			if (first == null) {
				first = key;
				slot = keySlot;
			}
			else if (keySlot != slot) {
				throw new CrossSlot(first, slot, key, keySlot);
			}
		}
		return slot;
	}

	static String display(byte[] key) {
		String text = new String(key, StandardCharsets.UTF_8);
		return (text.length() > 64) ? text.substring(0, 64) + "…" : text;
	}

	/**
	 * Two keys of one call in different slots.
	 */
	static final class CrossSlot extends RuntimeException {

		private final String description;

		CrossSlot(byte[] first, int firstSlot, byte[] other, int otherSlot) {
			super(null, null, false, false);
			this.description = "key '" + display(first) + "' hashes to slot " + firstSlot + " and key '"
					+ display(other) + "' to slot " + otherSlot;
		}

		String description() {
			return this.description;
		}

	}

}
