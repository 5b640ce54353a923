package dev.slotwise.internal.keyspace;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

import dev.slotwise.internal.routing.NodeAddress;
import org.jspecify.annotations.Nullable;

/**
 * One node's {@code CLUSTER NODES} reply, parsed: who the node is, which nodes are
 * masters and replicas, which slots each master serves, and which slots the node itself
 * is migrating or importing (only a node's own line carries those markers). The scan
 * compares such views taken before and after a walk to find the slots whose keys may have
 * moved past a cursor.
 *
 * @param nodes every line
 */
record ClusterNodes(List<Node> nodes) {

	static final int SLOTS = 16384;

	/**
	 * Parses a {@code CLUSTER NODES} reply.
	 * @param reply the reply text
	 * @return the parsed view
	 * @throws IllegalArgumentException naming the line that cannot be parsed
	 */
	static ClusterNodes parse(String reply) {
		List<Node> nodes = new ArrayList<>();
		for (String line : reply.split("\n")) {
			String trimmed = line.trim();
			if (!trimmed.isEmpty()) {
				nodes.add(Node.parse(trimmed));
			}
		}
		return new ClusterNodes(List.copyOf(nodes));
	}

	/**
	 * Returns the node that answered.
	 * @return its line
	 */
	Node myself() {
		for (Node node : this.nodes) {
			if (node.myself()) {
				return node;
			}
		}
		throw new IllegalStateException("CLUSTER NODES reply without a 'myself' line");
	}

	/**
	 * Returns a node by id.
	 * @param id the node id
	 * @return the node, or {@code null}
	 */
	@Nullable Node byId(@Nullable String id) {
		for (Node node : this.nodes) {
			if (node.id().equals(id)) {
				return node;
			}
		}
		return null;
	}

	/**
	 * Returns the masters that serve slots and are not marked failed.
	 * @return the masters
	 */
	List<Node> servingMasters() {
		List<Node> masters = new ArrayList<>();
		for (Node node : this.nodes) {
			if (node.master() && !node.failed() && !node.slots().isEmpty() && node.address() != null) {
				masters.add(node);
			}
		}
		return masters;
	}

	/**
	 * Returns the healthy replicas of a master.
	 * @param master the master
	 * @return its replicas not marked failed, with an address
	 */
	List<Node> replicasOf(Node master) {
		List<Node> replicas = new ArrayList<>();
		for (Node node : this.nodes) {
			if (!node.master() && master.id().equals(node.masterId()) && !node.failed() && node.address() != null
					&& node.connected()) {
				replicas.add(node);
			}
		}
		return replicas;
	}

	/**
	 * Returns the slots of the shard the answering node belongs to: its own when it is a
	 * master, its master's when it is a replica (a demoted master that now replicates the
	 * node that took its slots over still holds those keys).
	 * @return the slots, a new set
	 */
	BitSet shardSlots() {
		Node myself = myself();
		if (myself.master()) {
			return (BitSet) myself.slots().clone();
		}
		Node master = byId(myself.masterId());
		return (master != null) ? (BitSet) master.slots().clone() : new BitSet(SLOTS);
	}

	/**
	 * Returns the slots the answering node is migrating away or importing.
	 * @return the slots, a new set
	 */
	BitSet slotsInMotion() {
		Node myself = myself();
		BitSet moving = (BitSet) myself.migrating().clone();
		moving.or(myself.importing());
		return moving;
	}

	/**
	 * One line.
	 *
	 * @param id the node id
	 * @param address the client address, {@code null} for a node without one
	 * ({@code noaddr})
	 * @param hostname the announced hostname, or {@code null}
	 * @param myself whether this is the answering node
	 * @param master whether the node is a master
	 * @param failed whether the node is flagged {@code fail} or {@code fail?}
	 * @param connected whether the answering node's link to it is up
	 * @param masterId the id of its master, {@code null} for a master
	 * @param slots the slots it serves
	 * @param migrating the slots it is migrating away (its own line only)
	 * @param importing the slots it is importing (its own line only)
	 */
	record Node(String id, @Nullable NodeAddress address, @Nullable String hostname, boolean myself, boolean master,
			boolean failed, boolean connected, @Nullable String masterId, BitSet slots, BitSet migrating,
			BitSet importing) {

		static Node parse(String line) {
			String[] fields = line.split(" ");
			if (fields.length < 8) {
				throw new IllegalArgumentException("Unexpected CLUSTER NODES line: '" + line + "'");
			}
			String endpoint = fields[1];
			String hostname = null;
			int comma = endpoint.indexOf(',');
			if (comma >= 0) {
				String extra = endpoint.substring(comma + 1);
				// Redis 7 appends the hostname, then optional key=value pairs (tls-port,
				// shard-id...).
				String first = extra.split(",")[0];
				if (!first.isEmpty() && !first.contains("=")) {
					hostname = first;
				}
				endpoint = endpoint.substring(0, comma);
			}
			int at = endpoint.indexOf('@');
			if (at >= 0) {
				endpoint = endpoint.substring(0, at);
			}
			NodeAddress address = null;
			int colon = endpoint.lastIndexOf(':');
			if (colon > 0 && !endpoint.endsWith(":0")) {
				address = NodeAddress.parse(endpoint);
			}
			String flags = "," + fields[2] + ",";
			boolean master = flags.contains(",master,");
			String masterId = fields[3].equals("-") ? null : fields[3];
			BitSet slots = new BitSet(SLOTS);
			BitSet migrating = new BitSet(SLOTS);
			BitSet importing = new BitSet(SLOTS);
			for (int i = 8; i < fields.length; i++) {
				String range = fields[i];
				if (range.startsWith("[")) {
					int slot = Integer.parseInt(range.substring(1, range.indexOf('-')));
					if (range.contains("->-")) {
						migrating.set(slot);
					}
					else if (range.contains("-<-")) {
						importing.set(slot);
					}
					continue;
				}
				int dash = range.indexOf('-');
				if (dash < 0) {
					slots.set(Integer.parseInt(range));
				}
				else {
					slots.set(Integer.parseInt(range.substring(0, dash)),
							Integer.parseInt(range.substring(dash + 1)) + 1);
				}
			}
			return new Node(fields[0], address, hostname, flags.contains(",myself,"), master,
					flags.contains(",fail,") || flags.contains(",fail?,") || flags.contains(",handshake,")
							|| flags.contains(",noaddr,"),
					fields[7].equals("connected"), masterId, slots, migrating, importing);
		}

	}

}
