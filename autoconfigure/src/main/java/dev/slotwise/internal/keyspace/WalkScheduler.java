package dev.slotwise.internal.keyspace;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

import dev.slotwise.internal.routing.NodeAddress;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessResourceFailureException;

/**
 * The walk scheduling of a {@link ClusterScan}: one walk per master, pages requested in
 * turn from the idle walks while fewer than {@link ScanSettings#concurrency()} are in
 * flight, each page handed to the read-ahead (or, for a cache clear, to the removal
 * first), and each walk's view of its slots compared at its end with the scan's start.
 * Guarded by the scan's monitor.
 */
final class WalkScheduler {

	private final ClusterScan scan;

	private final ScanTransport transport;

	private final ScanReadAhead readAhead;

	private final @Nullable ScanRemoval removal;

	private final WalkRecovery recovery;

	private final MigrationRescan migration;

	private final int concurrency;

	private final byte @Nullable [] match;

	private final @Nullable Long count;

	private final @Nullable String type;

	private final List<ScanWalk> walks = new ArrayList<>();

	private int running;

	private int unfinished;

	private int nextWalk;

	WalkScheduler(ClusterScan scan, ScanTransport transport, ScanReadAhead readAhead, @Nullable ScanRemoval removal,
			WalkRecovery recovery, MigrationRescan migration, int concurrency, byte @Nullable [] match,
			@Nullable Long count, @Nullable String type) {
		this.scan = scan;
		this.transport = transport;
		this.readAhead = readAhead;
		this.removal = removal;
		this.recovery = recovery;
		this.migration = migration;
		this.concurrency = concurrency;
		this.match = match;
		this.count = count;
		this.type = type;
	}

	/**
	 * Creates a walk per serving master and reads each master's view of its slots.
	 * @return completes once every view was read and the walks may start
	 */
	CompletableFuture<Void> start(ClusterNodes layout) {
		List<ClusterNodes.Node> masters = layout.servingMasters();
		if (masters.isEmpty()) {
			throw new DataAccessResourceFailureException("No master serves slots in the cluster's layout");
		}
		List<CompletableFuture<Void>> views = new ArrayList<>();
		synchronized (this.scan) {
			for (ClusterNodes.Node master : masters) {
				ScanWalk walk = new ScanWalk(master, walkNode(layout, master));
				this.walks.add(walk);
				views.add(this.transport.clusterNodes(master).thenAccept((reply) -> {
					ClusterNodes view = ClusterNodes.parse(reply);
					synchronized (this.scan) {
						walk.startSlots = view.shardSlots();
						this.migration.suspect(view.slotsInMotion());
					}
				}));
			}
		}
		return CompletableFuture.allOf(views.toArray(new CompletableFuture<?>[0])).thenRun(() -> {
			synchronized (this.scan) {
				if (this.scan.startWalking()) {
					this.unfinished = this.walks.size();
				}
			}
		});
	}

	/**
	 * The node a walk of {@code master}'s keys reads: the master, or one of its replicas
	 * when the application reads from replicas.
	 */
	ClusterNodes.Node walkNode(ClusterNodes layout, ClusterNodes.Node master) {
		if (this.transport.readFromReplicas()) {
			List<ClusterNodes.Node> replicas = layout.replicasOf(master);
			if (!replicas.isEmpty()) {
				return replicas.get(ThreadLocalRandom.current().nextInt(replicas.size()));
			}
		}
		return master;
	}

	/**
	 * Adds the walks' masters to {@code seeds} (the monitor held), the first nodes asked
	 * for the layout.
	 */
	void addMasters(List<NodeAddress> seeds) {
		for (ScanWalk walk : this.walks) {
			NodeAddress address = walk.master.address();
			if (address != null && !seeds.contains(address)) {
				seeds.add(address);
			}
		}
	}

	/**
	 * Claims the walks whose next page may be requested now (the monitor held).
	 * @return the walks, to {@link #page(ScanWalk)} once the monitor is released
	 */
	List<ScanWalk> claimPages() {
		List<ScanWalk> pages = new ArrayList<>();
		while (this.running < this.concurrency && this.readAhead.hasRoom()) {
			ScanWalk walk = nextIdleWalk();
			if (walk == null) {
				break;
			}
			walk.inFlight = true;
			this.running++;
			pages.add(walk);
		}
		return pages;
	}

	/**
	 * Whether every walk ended (the monitor held).
	 */
	boolean allFinished() {
		return this.running == 0 && this.walks.stream().allMatch((walk) -> walk.finished);
	}

	/**
	 * Whether a walk is idle, neither reading nor ended, with room in flight (the monitor
	 * held).
	 */
	boolean canRequest() {
		return this.running < this.concurrency && this.running < this.unfinished;
	}

	/**
	 * A walk's page request ended without ending the walk (the monitor held).
	 */
	void pageEnded() {
		this.running--;
	}

	private @Nullable ScanWalk nextIdleWalk() {
		int size = this.walks.size();
		for (int i = 0; i < size; i++) {
			ScanWalk walk = this.walks.get((this.nextWalk + i) % size);
			if (!walk.finished && !walk.inFlight) {
				this.nextWalk = (this.nextWalk + i + 1) % size;
				return walk;
			}
		}
		return null;
	}

	/**
	 * Requests a walk's next page.
	 */
	void page(ScanWalk walk) {
		ClusterNodes.Node node;
		String cursor;
		synchronized (this.scan) {
			node = walk.node;
			cursor = walk.cursor;
		}
		this.transport.scan(node, cursor, this.match, this.count, this.type).whenComplete((page, failure) -> {
			if (failure != null) {
				this.recovery.walkFailed(walk, node, failure);
			}
			else {
				paged(walk, page);
			}
		});
	}

	private void paged(ScanWalk walk, ScanTransport.Page page) {
		boolean ended;
		ClusterNodes.Node master;
		ScanRemoval removal = this.removal;
		synchronized (this.scan) {
			master = walk.master;
			if (this.scan.isOver()) {
				return;
			}
			if (!page.keys().isEmpty()) {
				if (removal != null) {
					this.readAhead.removing(page.keys().size());
				}
				else {
					this.readAhead.add(page.keys());
				}
			}
			if (walk.restarted) {
				this.scan.countRescanned(page.keys().size());
			}
			walk.cursor = page.cursor();
			ended = "0".equals(page.cursor());
			if (!ended) {
				walk.inFlight = false;
				this.running--;
			}
		}
		if (ended) {
			endView(walk);
		}
		if (removal != null && !page.keys().isEmpty()) {
			// The walk's next SCAN first: the node answers it before these UNLINKs, so
			// the next page is on its way while they run.
			this.scan.pump();
			removal.removeThenBuffer(master, page.keys(), null);
			return;
		}
		this.readAhead.signal();
		this.scan.pump();
	}

	/**
	 * Compares the shard's slots at the end of the walk with those at the start of the
	 * scan; a difference, or a slot in motion, makes the slot suspect.
	 */
	private void endView(ScanWalk walk) {
		ClusterNodes.Node master;
		synchronized (this.scan) {
			master = walk.master;
		}
		this.transport.clusterNodes(master).whenComplete((reply, failure) -> {
			synchronized (this.scan) {
				if (failure != null) {
					// The master cannot tell: everything it served is suspect.
					this.migration.suspect(walk.startSlots);
				}
				else {
					ClusterNodes view = ClusterNodes.parse(reply);
					BitSet changed = view.shardSlots();
					changed.xor(walk.startSlots);
					this.migration.suspect(changed);
					this.migration.suspect(view.slotsInMotion());
				}
				walk.finished = true;
				walk.inFlight = false;
				this.running--;
				this.unfinished--;
			}
			this.scan.pump();
		});
	}

}
