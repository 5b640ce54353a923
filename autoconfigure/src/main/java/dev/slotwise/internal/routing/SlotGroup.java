package dev.slotwise.internal.routing;

/**
 * The keys of one call that hash to one slot, as positions in the caller's key array,
 * ascending.
 * <p>
 * Positions are kept as an {@code int[]} because a call may have 100,000 keys; the array
 * is owned by the group and must not be modified, and {@code equals} compares it by
 * identity.
 *
 * @param slot the hash slot
 * @param positions the positions of the keys in the caller's order, ascending; duplicates
 * of a key each have their own position
 */
public record SlotGroup(int slot, int[] positions) {

	/**
	 * Returns the number of keys in this group.
	 * @return the number of positions
	 */
	public int size() {
		return this.positions.length;
	}

}
