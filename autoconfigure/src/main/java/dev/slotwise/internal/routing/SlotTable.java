package dev.slotwise.internal.routing;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * An immutable slot-to-node table, so that routing a key costs one array read instead of
 * a scan of the topology.
 */
public final class SlotTable {

	private final @Nullable NodeAddress[] owners;

	private SlotTable(@Nullable NodeAddress[] owners) {
		this.owners = owners;
	}

	/**
	 * Builds a table from the slots each node serves.
	 * @param slotsByNode the slots of each node; a slot listed twice goes to the later
	 * node
	 * @return the table
	 */
	public static SlotTable of(Map<NodeAddress, int[]> slotsByNode) {
		NodeAddress[] owners = new NodeAddress[SlotHash.SLOT_COUNT];
		slotsByNode.forEach((node, slots) -> {
			for (int slot : slots) {
				owners[slot] = node;
			}
		});
		return new SlotTable(owners);
	}

	/**
	 * Returns the node serving a slot.
	 * @param slot the slot
	 * @return the node, or {@code null} when no node serves it
	 */
	public @Nullable NodeAddress owner(int slot) {
		return this.owners[slot];
	}

}
