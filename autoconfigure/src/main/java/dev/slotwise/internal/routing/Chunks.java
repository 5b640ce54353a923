package dev.slotwise.internal.routing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Splits work into bounded pieces, so that no single command or pipeline flush grows
 * without limit.
 */
public final class Chunks {

	private Chunks() {
	}

	/**
	 * Splits positions into consecutive chunks of at most {@code maxSize}, keeping their
	 * order.
	 * @param positions the positions
	 * @param maxSize the largest chunk
	 * @return the chunks; the input itself when it already fits
	 * @throws IllegalArgumentException if {@code maxSize} is not positive
	 */
	public static List<int[]> of(int[] positions, int maxSize) {
		requirePositive(maxSize);
		if (positions.length <= maxSize) {
			return List.of(positions);
		}
		List<int[]> chunks = new ArrayList<>((positions.length + maxSize - 1) / maxSize);
		for (int from = 0; from < positions.length; from += maxSize) {
			chunks.add(Arrays.copyOfRange(positions, from, Math.min(positions.length, from + maxSize)));
		}
		return chunks;
	}

	/**
	 * Splits a list into consecutive sub-lists of at most {@code maxSize}, keeping their
	 * order.
	 * @param items the items
	 * @param maxSize the largest sub-list
	 * @param <T> the item type
	 * @return views of the list
	 * @throws IllegalArgumentException if {@code maxSize} is not positive
	 */
	public static <T> List<List<T>> of(List<T> items, int maxSize) {
		requirePositive(maxSize);
		if (items.size() <= maxSize) {
			return List.of(items);
		}
		List<List<T>> chunks = new ArrayList<>((items.size() + maxSize - 1) / maxSize);
		for (int from = 0; from < items.size(); from += maxSize) {
			chunks.add(items.subList(from, Math.min(items.size(), from + maxSize)));
		}
		return chunks;
	}

	private static void requirePositive(int maxSize) {
		if (maxSize < 1) {
			throw new IllegalArgumentException("'maxSize' must be positive, was " + maxSize);
		}
	}

}
