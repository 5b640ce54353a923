package dev.slotwise.routing;

import java.util.List;

/**
 * The slot groups of one call that one node serves.
 *
 * @param node the node, as the routing function named it
 * @param groups the groups, in the plan's order
 */
public record NodeBatch(NodeAddress node, List<SlotGroup> groups) {

	/**
	 * Copies the group list.
	 * @param node the node
	 * @param groups the groups
	 */
	public NodeBatch {
		groups = List.copyOf(groups);
	}

	/**
	 * Returns the number of keys in this batch.
	 * @return the sum of the groups' sizes
	 */
	public int keyCount() {
		int count = 0;
		for (SlotGroup group : this.groups) {
			count += group.size();
		}
		return count;
	}

}
