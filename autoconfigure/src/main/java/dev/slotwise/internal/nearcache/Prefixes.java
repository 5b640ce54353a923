package dev.slotwise.internal.nearcache;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Key prefixes as {@code CLIENT TRACKING ... BCAST} takes them: Redis refuses two
 * prefixes of which one starts with the other, so a prefix covered by a shorter one is
 * left out (the shorter one tracks its keys too).
 */
final class Prefixes {

	private Prefixes() {
	}

	/**
	 * Returns the prefixes no other prefix of the list covers, without duplicates,
	 * shortest first.
	 * @param prefixes the prefixes
	 * @return the prefixes to register
	 */
	static List<byte[]> disjoint(List<byte[]> prefixes) {
		List<byte[]> sorted = new ArrayList<>(prefixes);
		sorted.sort((a, b) -> Integer.compare(a.length, b.length));
		List<byte[]> kept = new ArrayList<>();
		for (byte[] prefix : sorted) {
			if (kept.stream().noneMatch((shorter) -> startsWith(prefix, shorter))) {
				kept.add(prefix);
			}
		}
		return List.copyOf(kept);
	}

	/**
	 * Tells whether a key starts with one of the prefixes.
	 * @param key the key
	 * @param prefixes the prefixes
	 * @return whether one covers the key
	 */
	static boolean covers(byte[] key, List<byte[]> prefixes) {
		for (byte[] prefix : prefixes) {
			if (startsWith(key, prefix)) {
				return true;
			}
		}
		return false;
	}

	static boolean startsWith(byte[] key, byte[] prefix) {
		return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
	}

}
