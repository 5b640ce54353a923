package dev.slotwise.internal.keyspace;

import java.util.BitSet;

/**
 * One master's walk in a {@link ClusterScan}: the node read, its cursor and what the
 * walk's slots were at the start. Guarded by the scan's monitor.
 */
final class ScanWalk {

	/** The master whose keys the walk reads (the walk may read one of its replicas). */
	ClusterNodes.Node master;

	/** The node the walk sends its {@code SCAN}s to. */
	ClusterNodes.Node node;

	/** The slots of the master's shard at the start of the scan. */
	BitSet startSlots = new BitSet(ClusterNodes.SLOTS);

	String cursor = "0";

	boolean inFlight;

	boolean finished;

	/** Whether the walk started over on another node (its keys count as rescanned). */
	boolean restarted;

	ScanWalk(ClusterNodes.Node master, ClusterNodes.Node node) {
		this.master = master;
		this.node = node;
	}

}
