package dev.slotwise.internal.routing;

/**
 * The hash slot of a key as the Redis Cluster specification defines it: CRC16-XMODEM of
 * the key, or of its hash tag, modulo 16384.
 * <p>
 * The hash tag is the content between the first {@code '{'} and the first {@code '}'}
 * after it, used only when that content is not empty; otherwise the whole key is hashed.
 */
public final class SlotHash {

	/** The number of hash slots of a Redis Cluster. */
	public static final int SLOT_COUNT = 16384;

	private static final int[] TABLE = new int[256];

	static {
		// XMODEM: polynomial 0x1021, initial value 0, no reflection, no final XOR.
		for (int b = 0; b < 256; b++) {
			int crc = b << 8;
			for (int bit = 0; bit < 8; bit++) {
				crc = ((crc & 0x8000) != 0) ? (crc << 1) ^ 0x1021 : crc << 1;
			}
			TABLE[b] = crc & 0xFFFF;
		}
	}

	private SlotHash() {
	}

	/**
	 * Returns the CRC16-XMODEM checksum of a byte range.
	 * @param bytes the bytes
	 * @param from the first index, inclusive
	 * @param to the last index, exclusive
	 * @return the checksum, 0..0xFFFF
	 */
	public static int crc16(byte[] bytes, int from, int to) {
		int crc = 0;
		for (int i = from; i < to; i++) {
			crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ bytes[i]) & 0xFF]) & 0xFFFF;
		}
		return crc;
	}

	/**
	 * Returns the CRC16-XMODEM checksum of all bytes.
	 * @param bytes the bytes
	 * @return the checksum, 0..0xFFFF
	 */
	public static int crc16(byte[] bytes) {
		return crc16(bytes, 0, bytes.length);
	}

	/**
	 * Returns the hash slot of a key, honouring hash tags.
	 * @param key the key
	 * @return the slot, 0..16383
	 * @throws IllegalArgumentException if {@code key} is null
	 */
	public static int slot(byte[] key) {
		if (key == null) {
			throw new IllegalArgumentException("'key' must not be null");
		}
		int open = indexOf(key, (byte) '{', 0);
		if (open >= 0) {
			int close = indexOf(key, (byte) '}', open + 1);
			if (close > open + 1) {
				return crc16(key, open + 1, close) & (SLOT_COUNT - 1);
			}
		}
		return crc16(key, 0, key.length) & (SLOT_COUNT - 1);
	}

	private static int indexOf(byte[] bytes, byte value, int from) {
		for (int i = from; i < bytes.length; i++) {
			if (bytes[i] == value) {
				return i;
			}
		}
		return -1;
	}

}
