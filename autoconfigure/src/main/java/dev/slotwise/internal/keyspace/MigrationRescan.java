package dev.slotwise.internal.keyspace;

import dev.slotwise.internal.routing.Glob;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The migration rescan of a {@link ClusterScan}: a key migrating from A to B can slip
 * past both cursors (A's cursor had not reached it when it left, B's had passed its
 * position when it arrived). The slots a walk's master served differently at its end than
 * at the scan's start, and those in motion, are suspect; once every walk ended they are
 * read again, key by key, with {@code CLUSTER GETKEYSINSLOT} on the node that owns them
 * and then on the node importing them (a key moving in between is found on the importer),
 * filtered by the pattern and type here. The rescan repeats (up to {@value #MAX_ROUNDS}
 * rounds) while slots keep moving. Guarded by the scan's monitor.
 */
final class MigrationRescan {

	private static final Log logger = LogFactory.getLog(ClusterScan.class);

	static final int MAX_ROUNDS = 5;

	private static final int SLOTS_PER_RESCAN = 64;

	private final ClusterScan scan;

	private final ScanTransport transport;

	private final ScanReadAhead readAhead;

	private final @Nullable ScanRemoval removal;

	private final byte @Nullable [] match;

	private final @Nullable String type;

	private final BitSet suspect = new BitSet(ClusterNodes.SLOTS);

	private final ArrayDeque<Rescan> rescans = new ArrayDeque<>();

	private int round;

	private boolean rescanning;

	private @Nullable Map<String, ClusterNodes.Node> roundOwners;

	private BitSet roundMotion = new BitSet(ClusterNodes.SLOTS);

	/**
	 * @param removal removes the keys found where they are, for a cache clear, or
	 * {@code null}
	 * @param match the pattern keys are filtered by, or {@code null}
	 * @param type the type (lower case) keys are filtered by, or {@code null}
	 */
	MigrationRescan(ClusterScan scan, ScanTransport transport, ScanReadAhead readAhead, @Nullable ScanRemoval removal,
			byte @Nullable [] match, @Nullable String type) {
		this.scan = scan;
		this.transport = transport;
		this.readAhead = readAhead;
		this.removal = removal;
		this.match = match;
		this.type = type;
	}

	/**
	 * Marks slots to read again (the scan's monitor held).
	 */
	void suspect(BitSet slots) {
		this.suspect.or(slots);
	}

	/**
	 * Whether a rescan is being read (the scan's monitor held).
	 */
	boolean isRescanning() {
		return this.rescanning;
	}

	/**
	 * Takes the next rescan due, marking it in progress (the scan's monitor held).
	 * @return the rescan, or {@code null} when none is left
	 */
	@Nullable Rescan next() {
		Rescan rescan = this.rescans.poll();
		if (rescan != null) {
			this.rescanning = true;
		}
		return rescan;
	}

	/**
	 * Every walk ended: reads the current masters' views, adds the slots in motion, and
	 * plans the rescan of the suspect slots, or ends the scan.
	 */
	void verify() {
		this.scan.layout().thenCompose((layout) -> {
			List<ClusterNodes.Node> masters = layout.servingMasters();
			List<CompletableFuture<ClusterNodes.Node>> views = new ArrayList<>();
			for (ClusterNodes.Node master : masters) {
				views.add(this.transport.clusterNodes(master).thenApply((reply) -> ClusterNodes.parse(reply).myself()));
			}
			return CompletableFuture.allOf(views.toArray(new CompletableFuture<?>[0]))
				.thenApply((ignored) -> views.stream().map(CompletableFuture::join).toList());
		}).whenComplete((owners, failure) -> {
			if (failure != null) {
				this.scan.fail(failure);
				return;
			}
			boolean done;
			synchronized (this.scan) {
				if (this.scan.isOver()) {
					return;
				}
				Map<String, ClusterNodes.Node> current = new LinkedHashMap<>();
				BitSet motion = new BitSet(ClusterNodes.SLOTS);
				for (ClusterNodes.Node owner : owners) {
					current.put(owner.id(), owner);
					motion.or(owner.migrating());
					motion.or(owner.importing());
				}
				Map<String, ClusterNodes.Node> previous = this.roundOwners;
				if (previous == null) {
					this.suspect.or(motion);
				}
				else {
					// After a round of rescans: slots that moved, or started or stopped
					// moving, meanwhile are read again. A slot still migrating as before
					// needs no second read: its rescan read the source before the
					// importer.
					this.suspect.or(moved(previous, current));
					BitSet changedMotion = (BitSet) motion.clone();
					changedMotion.xor(this.roundMotion);
					this.suspect.or(changedMotion);
				}
				this.roundOwners = current;
				this.roundMotion = motion;
				done = this.suspect.isEmpty() || this.round >= MAX_ROUNDS;
				if (done) {
					if (!this.suspect.isEmpty()) {
						logger.warn("Slots kept moving through " + MAX_ROUNDS + " rescans; the scan ends without "
								+ "reading slots " + this.suspect + " once more: a key that moved with them may be "
								+ "missing");
					}
				}
				else {
					this.round++;
					planRescans(current.values());
					this.suspect.clear();
					this.scan.rescanning();
				}
			}
			if (done) {
				this.scan.complete();
			}
			else {
				this.scan.pump();
			}
		});
	}

	private static BitSet moved(Map<String, ClusterNodes.Node> previous, Map<String, ClusterNodes.Node> current) {
		BitSet moved = new BitSet(ClusterNodes.SLOTS);
		for (Map.Entry<String, ClusterNodes.Node> entry : current.entrySet()) {
			ClusterNodes.Node before = previous.get(entry.getKey());
			BitSet slots = (BitSet) entry.getValue().slots().clone();
			if (before != null) {
				slots.xor(before.slots());
			}
			moved.or(slots);
		}
		for (Map.Entry<String, ClusterNodes.Node> entry : previous.entrySet()) {
			if (!current.containsKey(entry.getKey())) {
				moved.or(entry.getValue().slots());
			}
		}
		return moved;
	}

	/**
	 * Owners first, importers after: a key that migrates between the two reads is found
	 * on the importer.
	 */
	private void planRescans(Iterable<ClusterNodes.Node> owners) {
		Map<ClusterNodes.Node, List<Integer>> first = new HashMap<>();
		Map<ClusterNodes.Node, List<Integer>> then = new HashMap<>();
		for (int slot = this.suspect.nextSetBit(0); slot >= 0; slot = this.suspect.nextSetBit(slot + 1)) {
			for (ClusterNodes.Node owner : owners) {
				if (owner.slots().get(slot)) {
					first.computeIfAbsent(owner, (node) -> new ArrayList<>()).add(slot);
				}
				if (owner.importing().get(slot)) {
					then.computeIfAbsent(owner, (node) -> new ArrayList<>()).add(slot);
				}
			}
		}
		for (Map<ClusterNodes.Node, List<Integer>> stage : List.of(first, then)) {
			for (Map.Entry<ClusterNodes.Node, List<Integer>> entry : stage.entrySet()) {
				List<Integer> slots = entry.getValue();
				for (int from = 0; from < slots.size(); from += SLOTS_PER_RESCAN) {
					int[] chunk = slots.subList(from, Math.min(slots.size(), from + SLOTS_PER_RESCAN))
						.stream()
						.mapToInt(Integer::intValue)
						.toArray();
					this.rescans.add(new Rescan(entry.getKey(), chunk));
				}
			}
		}
	}

	/**
	 * Reads the keys of a rescan's slots on its node and hands those matching to the
	 * consumer (for a cache clear, once removed there).
	 */
	void rescan(Rescan rescan) {
		this.transport.keysInSlots(rescan.node, rescan.slots, this.type != null).whenComplete((keys, failure) -> {
			if (failure != null) {
				this.scan.fail(failure);
				return;
			}
			ScanRemoval removal = this.removal;
			List<byte[]> toRemove = null;
			synchronized (this.scan) {
				if (this.scan.isOver()) {
					return;
				}
				List<byte[]> found = new ArrayList<>();
				for (ScanTransport.TypedKey key : keys) {
					if ((this.match == null || Glob.matches(this.match, key.key()))
							&& (this.type == null || this.type.equalsIgnoreCase(key.type()))) {
						found.add(key.key());
					}
				}
				if (!found.isEmpty() && removal != null) {
					this.scan.countRescanned(found.size());
					this.readAhead.removing(found.size());
					// Still rescanning until they are removed: verify() must not run
					// before.
					toRemove = found;
				}
				else {
					if (!found.isEmpty()) {
						this.readAhead.add(found);
						this.scan.countRescanned(found.size());
					}
					this.rescanning = false;
				}
			}
			if (toRemove != null && removal != null) {
				removal.removeThenBuffer(rescan.node, toRemove, () -> this.rescanning = false);
				return;
			}
			this.readAhead.signal();
			this.scan.pump();
		});
	}

	/**
	 * Slots of one node to read again.
	 */
	record Rescan(ClusterNodes.Node node, int[] slots) {
	}

}
