package dev.slotwise.internal.routing;

/**
 * Redis's glob-style matching ({@code SCAN MATCH}, {@code KEYS}): {@code *}, {@code ?},
 * {@code [abc]}, {@code [^a]}, {@code [a-z]} and {@code \} escapes, on bytes. Used where
 * the server cannot filter for us: the keys {@code CLUSTER GETKEYSINSLOT} returns for a
 * slot rescanned after a migration.
 */
public final class Glob {

	private Glob() {
	}

	/**
	 * Tells whether a key matches a pattern.
	 * @param pattern the pattern
	 * @param key the key
	 * @return whether it matches
	 */
	public static boolean matches(byte[] pattern, byte[] key) {
		return matches(pattern, 0, key, 0);
	}

	private static boolean matches(byte[] p, int pi, byte[] s, int si) {
		while (pi < p.length) {
			byte c = p[pi];
			if (c == '*') {
				while (pi + 1 < p.length && p[pi + 1] == '*') {
					pi++;
				}
				if (pi + 1 == p.length) {
					return true;
				}
				for (int from = si; from <= s.length; from++) {
					if (matches(p, pi + 1, s, from)) {
						return true;
					}
				}
				return false;
			}
			if (si >= s.length) {
				return false;
			}
			if (c == '?') {
				pi++;
				si++;
				continue;
			}
			if (c == '[') {
				int end = pi + 1;
				boolean negate = end < p.length && p[end] == '^';
				if (negate) {
					end++;
				}
				boolean found = false;
				while (end < p.length && p[end] != ']') {
					if (p[end] == '\\' && end + 1 < p.length) {
						end++;
						found |= p[end] == s[si];
					}
					else if (end + 2 < p.length && p[end + 1] == '-' && p[end + 2] != ']') {
						int low = p[end] & 0xff;
						int high = p[end + 2] & 0xff;
						if (low > high) {
							int swap = low;
							low = high;
							high = swap;
						}
						int value = s[si] & 0xff;
						found |= value >= low && value <= high;
						end += 2;
					}
					else {
						found |= p[end] == s[si];
					}
					end++;
				}
				if (found == negate) {
					return false;
				}
				pi = Math.min(end + 1, p.length);
				si++;
				continue;
			}
			if (c == '\\' && pi + 1 < p.length) {
				pi++;
				c = p[pi];
			}
			if (c != s[si]) {
				return false;
			}
			pi++;
			si++;
		}
		return si == s.length;
	}

}
