package dev.slotwise.internal.keyspace;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.SlotHash;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.InvalidDataAccessApiUsageException;

/**
 * One cluster-wide {@code SCAN}: a cursor per master (or per replica of it, when the application reads from
 * replicas), at most {@link ScanSettings#concurrency()} pages in flight, at most about
 * {@link ScanSettings#readAhead()} keys buffered ahead of the consumer. Driven by its consumer: {@link #pollPage()} and
 * {@link #takePage()} hand out keys a page at a time (one lock per page, not per key) and let the walks read on; {@link #close()} stops every walk (no page is requested
 * after it; connections are the client's own and go back as each page completes).
 * <p>
 * What it returns is what {@code SCAN} promises, across topology changes too: every key present on the cluster for
 * the whole scan is returned at least once; a key may be returned more than once.
 * <ul>
 * <li><b>Failover.</b> A node that stops answering mid-walk is replaced by the master that serves its slots next
 * (found by polling the cluster's layout for up to {@link ScanSettings#failoverTimeout()}), and the walk starts over
 * there from cursor 0: a {@code SCAN} cursor is a position in one server's hash table, seeded per process, so it
 * means nothing on another node. The keys the restarted walk returns count as rescanned (possible duplicates). A
 * master demoted by a manual failover keeps answering as a replica holding the same keys; its walk simply goes on.</li>
 * <li><b>Slot migration.</b> A key migrating from A to B can slip past both cursors (A's cursor had not reached it
 * when it left, B's had passed its position when it arrived). Every walk compares its shard's slots, and the slots its
 * master marks migrating or importing, at the start of the scan and at the end of the walk; every slot that changed
 * or was in motion is read again at the end, key by key, with {@code CLUSTER GETKEYSINSLOT} on the node that owns it
 * and then on the node importing it (in that order: a key moving in between is found on the importer), filtered by the
 * pattern and type here. The rescan repeats (up to {@value #MAX_ROUNDS} rounds) while slots keep moving. Not covered:
 * a slot that leaves a master and comes back to it within one walk, which no view shows.</li>
 * </ul>
 */
final class ClusterScan {

	private static final Log logger = LogFactory.getLog(ClusterScan.class);

	static final int MAX_ROUNDS = 5;

	private static final int SLOTS_PER_RESCAN = 64;

	/** Keys per {@code UNLINK} when a cache clear removes keys where they were found (one slot per command). */
	private static final int MAX_KEYS_PER_UNLINK = 1000;

	private static final long RECOVERY_POLL_MILLIS = 100;

	private final ScanTransport transport;

	private final ScanSettings settings;

	private final byte @Nullable [] match;

	private final @Nullable Long count;

	private final @Nullable String type;

	private final ScanObserver observer;

	private final boolean cacheClear;

	private final boolean removeAtSource;

	/** Keys removed where their walk found them, until the cache clear's own delete of them claims them. */
	private final Set<byte[]> removed = Collections.newSetFromMap(new IdentityHashMap<>());

	/** Keys whose {@code UNLINK}s are in flight: they count against the read-ahead like buffered ones. */
	private int removing;

	private final long started = System.nanoTime();

	private final ArrayDeque<List<byte[]>> buffer = new ArrayDeque<>();

	private int buffered;

	private final List<Walk> walks = new ArrayList<>();

	private final BitSet suspect = new BitSet(ClusterNodes.SLOTS);

	private final ArrayDeque<Rescan> rescans = new ArrayDeque<>();

	private State state = State.NEW;

	private @Nullable Throwable failure;

	private int running;

	private int unfinished;

	private int nextWalk;

	private int round;

	private boolean rescanning;

	private @Nullable Map<String, ClusterNodes.Node> roundOwners;

	private BitSet roundMotion = new BitSet(ClusterNodes.SLOTS);

	private long returned;

	private long rescanned;

	private long restarts;

	private Runnable signal = () -> {
	};

	/** Consumers waiting in {@link #takePage()}. */
	private int waiting;

	/**
	 * @param transport the client
	 * @param settings the limits
	 * @param match the pattern every node filters by, or {@code null}
	 * @param count the count hint sent with every {@code SCAN}, or {@code null}
	 * @param type the type every node filters by, or {@code null}
	 * @param observer sees the scan when it ends
	 * @param cacheClear whether a cache clear runs the scan: it removes every key it found on the master whose walk
	 * found it, before handing it out ({@link #claimRemoved(byte[][])} tells the cache clear which of its keys are
	 * gone already), and the observer sees the clear
	 */
	ClusterScan(ScanTransport transport, ScanSettings settings, byte @Nullable [] match, @Nullable Long count,
			@Nullable String type, ScanObserver observer, boolean cacheClear) {
		this.cacheClear = cacheClear;
		this.removeAtSource = cacheClear;
		this.transport = transport;
		this.settings = settings;
		this.match = match;
		this.count = count;
		this.type = (type != null) ? type.toLowerCase(Locale.ROOT) : null;
		this.observer = observer;
	}

	/**
	 * Sets what runs whenever keys arrive or the scan ends (a reactive consumer's drain loop); runs on a client
	 * thread.
	 * @param signal the callback
	 */
	synchronized void onSignal(Runnable signal) {
		this.signal = signal;
	}

	/**
	 * Starts reading the cluster's layout and the masters' slots; the walks follow.
	 * @return this scan
	 */
	ClusterScan start() {
		synchronized (this) {
			if (this.state != State.NEW) {
				return this;
			}
			this.state = State.STARTING;
		}
		layout().thenCompose(this::startViews).whenComplete((ignored, failure) -> {
			if (failure != null) {
				fail(failure);
			}
			else {
				pump();
			}
		});
		return this;
	}

	private CompletableFuture<Void> startViews(ClusterNodes layout) {
		List<ClusterNodes.Node> masters = layout.servingMasters();
		if (masters.isEmpty()) {
			throw new DataAccessResourceFailureException("No master serves slots in the cluster's layout");
		}
		List<CompletableFuture<Void>> views = new ArrayList<>();
		synchronized (this) {
			for (ClusterNodes.Node master : masters) {
				Walk walk = new Walk(master, walkNode(layout, master));
				this.walks.add(walk);
				views.add(this.transport.clusterNodes(master).thenAccept((reply) -> {
					ClusterNodes view = ClusterNodes.parse(reply);
					synchronized (this) {
						walk.startSlots = view.shardSlots();
						this.suspect.or(view.slotsInMotion());
					}
				}));
			}
		}
		return CompletableFuture.allOf(views.toArray(new CompletableFuture<?>[0])).thenRun(() -> {
			synchronized (this) {
				if (this.state == State.STARTING) {
					this.state = State.WALKING;
					this.unfinished = this.walks.size();
				}
			}
		});
	}

	private ClusterNodes.Node walkNode(ClusterNodes layout, ClusterNodes.Node master) {
		if (this.transport.readFromReplicas()) {
			List<ClusterNodes.Node> replicas = layout.replicasOf(master);
			if (!replicas.isEmpty()) {
				return replicas.get(ThreadLocalRandom.current().nextInt(replicas.size()));
			}
		}
		return master;
	}

	/**
	 * Reads the layout from the first seed that answers.
	 */
	private CompletableFuture<ClusterNodes> layout() {
		List<NodeAddress> seeds = new ArrayList<>();
		synchronized (this) {
			for (Walk walk : this.walks) {
				NodeAddress address = walk.master.address();
				if (address != null && !seeds.contains(address)) {
					seeds.add(address);
				}
			}
		}
		for (NodeAddress seed : this.transport.seeds()) {
			if (!seeds.contains(seed)) {
				seeds.add(seed);
			}
		}
		return layout(seeds, 0, null);
	}

	private CompletableFuture<ClusterNodes> layout(List<NodeAddress> seeds, int index, @Nullable Throwable last) {
		if (index >= seeds.size()) {
			return CompletableFuture.failedFuture(new DataAccessResourceFailureException(
					"No node of " + seeds + " answered CLUSTER NODES", unwrap(last)));
		}
		return this.transport.clusterNodes(seeds.get(index))
			.thenApply(ClusterNodes::parse)
			.handle((layout, failure) -> (failure == null) ? CompletableFuture.completedFuture(layout)
					: layout(seeds, index + 1, failure))
			.thenCompose(Function.identity());
	}

	/**
	 * Requests pages while fewer than the concurrency are in flight and the buffer is below the read-ahead, then, once
	 * every walk ended, the rescans.
	 */
	private void pump() {
		List<Walk> pages = new ArrayList<>();
		Rescan rescan = null;
		boolean verify = false;
		synchronized (this) {
			if (this.state == State.WALKING) {
				while (this.running < this.settings.concurrency()
						&& this.buffered + this.removing < this.settings.readAhead()) {
					Walk walk = nextIdleWalk();
					if (walk == null) {
						break;
					}
					walk.inFlight = true;
					this.running++;
					pages.add(walk);
				}
				if (this.running == 0 && this.removing == 0 && this.walks.stream().allMatch((walk) -> walk.finished)) {
					this.state = State.VERIFYING;
					verify = true;
				}
			}
			else if (this.state == State.RESCANNING && !this.rescanning
					&& this.buffered + this.removing < this.settings.readAhead()) {
				rescan = this.rescans.poll();
				if (rescan != null) {
					this.rescanning = true;
				}
				else {
					this.state = State.VERIFYING;
					verify = true;
				}
			}
		}
		for (Walk walk : pages) {
			page(walk);
		}
		if (rescan != null) {
			rescan(rescan);
		}
		if (verify) {
			verify();
		}
	}

	private @Nullable Walk nextIdleWalk() {
		int size = this.walks.size();
		for (int i = 0; i < size; i++) {
			Walk walk = this.walks.get((this.nextWalk + i) % size);
			if (!walk.finished && !walk.inFlight) {
				this.nextWalk = (this.nextWalk + i + 1) % size;
				return walk;
			}
		}
		return null;
	}

	private void page(Walk walk) {
		ClusterNodes.Node node;
		String cursor;
		synchronized (this) {
			node = walk.node;
			cursor = walk.cursor;
		}
		this.transport.scan(node, cursor, this.match, this.count, this.type)
			.whenComplete((page, failure) -> {
				if (failure != null) {
					walkFailed(walk, node, failure);
				}
				else {
					paged(walk, page);
				}
			});
	}

	private void paged(Walk walk, ScanTransport.Page page) {
		boolean ended;
		ClusterNodes.Node master;
		synchronized (this) {
			master = walk.master;
			if (this.state.isOver()) {
				return;
			}
			if (!page.keys().isEmpty()) {
				if (this.removeAtSource) {
					this.removing += page.keys().size();
				}
				else {
					this.buffer.add(page.keys());
					this.buffered += page.keys().size();
				}
			}
			if (walk.restarted) {
				this.rescanned += page.keys().size();
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
		if (this.removeAtSource && !page.keys().isEmpty()) {
			// The walk's next SCAN first: the node answers it before these UNLINKs, so the next page is on its way
			// while they run.
			pump();
			removeThenBuffer(master, page.keys(), null);
			return;
		}
		signal();
		pump();
	}

	/**
	 * Removes keys on the master whose walk (or rescan) found them, one {@code UNLINK} per slot, then hands them to
	 * the consumer, those removed marked so. A key the master did not remove (a redirect: its slot moved; a node that
	 * stopped answering) is handed out unmarked: the cache clear's own delete, routed as usual, removes it.
	 */
	private void removeThenBuffer(ClusterNodes.Node master, List<byte[]> keys, @Nullable Runnable then) {
		Map<Integer, List<byte[]>> bySlot = new LinkedHashMap<>();
		for (byte[] key : keys) {
			bySlot.computeIfAbsent(SlotHash.slot(key), (slot) -> new ArrayList<>(2)).add(key);
		}
		List<byte[][]> groups = new ArrayList<>(bySlot.size());
		for (List<byte[]> group : bySlot.values()) {
			for (int from = 0; from < group.size(); from += MAX_KEYS_PER_UNLINK) {
				groups.add(group.subList(from, Math.min(group.size(), from + MAX_KEYS_PER_UNLINK))
					.toArray(new byte[0][]));
			}
		}
		CompletableFuture<boolean[]> unlinked;
		try {
			unlinked = this.transport.unlink(master, groups);
		}
		catch (RuntimeException ex) {
			unlinked = CompletableFuture.failedFuture(ex);
		}
		unlinked.orTimeout(this.settings.timeout().toNanos(), TimeUnit.NANOSECONDS)
			.whenComplete((done, failure) -> {
				synchronized (this) {
					this.removing -= keys.size();
					if (then != null) {
						then.run();
					}
					if (this.state.isOver()) {
						return;
					}
					if (failure == null) {
						for (int i = 0; i < done.length; i++) {
							if (done[i]) {
								Collections.addAll(this.removed, groups.get(i));
							}
						}
					}
					else {
						logger.debug("Removing scanned keys on " + master.address() + " failed; the cache clear's "
								+ "own delete removes them", failure);
					}
					this.buffer.add(keys);
					this.buffered += keys.size();
				}
				signal();
				pump();
			});
	}

	/**
	 * Takes back, among keys this scan handed out, those it removed itself (compared by reference: exactly the arrays
	 * it returned), so that the cache clear deletes only the others.
	 * @param keys keys the cache clear is about to delete
	 * @return the keys not removed by this scan, {@code keys} itself when none was
	 */
	byte[][] claimRemoved(byte[][] keys) {
		synchronized (this) {
			if (this.removed.isEmpty()) {
				return keys;
			}
			List<byte[]> rest = null;
			for (int i = 0; i < keys.length; i++) {
				if (this.removed.remove(keys[i])) {
					if (rest == null) {
						rest = new ArrayList<>(keys.length);
						for (int j = 0; j < i; j++) {
							rest.add(keys[j]);
						}
					}
				}
				else if (rest != null) {
					rest.add(keys[i]);
				}
			}
			return (rest == null) ? keys : rest.toArray(new byte[0][]);
		}
	}

	/**
	 * Compares the shard's slots at the end of the walk with those at the start of the scan; a difference, or a slot
	 * in motion, makes the slot suspect.
	 */
	private void endView(Walk walk) {
		ClusterNodes.Node master;
		synchronized (this) {
			master = walk.master;
		}
		this.transport.clusterNodes(master).whenComplete((reply, failure) -> {
			synchronized (this) {
				if (failure != null) {
					// The master cannot tell: everything it served is suspect.
					this.suspect.or(walk.startSlots);
				}
				else {
					ClusterNodes view = ClusterNodes.parse(reply);
					BitSet changed = view.shardSlots();
					changed.xor(walk.startSlots);
					this.suspect.or(changed);
					this.suspect.or(view.slotsInMotion());
				}
				walk.finished = true;
				walk.inFlight = false;
				this.running--;
				this.unfinished--;
			}
			pump();
		});
	}

	/**
	 * A node stopped answering: a server error ends the scan; anything else waits for the slots to be served again
	 * and resumes there (the same node: same cursor; another: from the start).
	 */
	private void walkFailed(Walk walk, ClusterNodes.Node node, Throwable failure) {
		Throwable cause = unwrap(failure);
		if (cause instanceof ScanTransport.ServerError) {
			fail(cause);
			return;
		}
		synchronized (this) {
			if (this.state.isOver()) {
				return;
			}
		}
		logger.debug("Scan of " + node.address() + " failed, waiting for its slots to be served again", cause);
		this.transport.invalidateTopology();
		recover(walk, node, System.nanoTime() + this.settings.failoverTimeout().toNanos(), cause);
	}

	private void recover(Walk walk, ClusterNodes.Node failed, long deadline, Throwable cause) {
		CompletableFuture.runAsync(() -> {
		}, CompletableFuture.delayedExecutor(RECOVERY_POLL_MILLIS, TimeUnit.MILLISECONDS))
			.thenCompose((ignored) -> layout())
			.whenComplete((layout, failure) -> {
				synchronized (this) {
					if (this.state.isOver()) {
						return;
					}
				}
				ClusterNodes.Node successor = (layout != null) ? successor(layout, walk) : null;
				if (successor == null) {
					if (System.nanoTime() - deadline > 0) {
						fail(new DataAccessResourceFailureException("Scan of " + failed.address()
								+ " failed and no node served its slots again within "
								+ this.settings.failoverTimeout(), cause));
					}
					else {
						recover(walk, failed, deadline, cause);
					}
					return;
				}
				synchronized (this) {
					ClusterNodes.Node next = walkNode(layout, successor);
					if (!next.id().equals(failed.id())) {
						// A cursor is a position in one server's table: another node starts over.
						walk.cursor = "0";
						walk.restarted = true;
						this.restarts++;
					}
					walk.master = successor;
					walk.node = next;
					walk.inFlight = false;
					this.running--;
				}
				pump();
			});
	}

	/**
	 * Returns the master that now serves most of the walk's slots, once it is not marked failed.
	 */
	private static ClusterNodes.@Nullable Node successor(ClusterNodes layout, Walk walk) {
		ClusterNodes.Node best = null;
		int bestShared = 0;
		for (ClusterNodes.Node master : layout.servingMasters()) {
			BitSet shared = (BitSet) master.slots().clone();
			shared.and(walk.startSlots);
			if (shared.cardinality() > bestShared) {
				best = master;
				bestShared = shared.cardinality();
			}
		}
		return best;
	}

	/**
	 * Every walk ended: reads the current masters' views, adds the slots in motion, and plans the rescan of the
	 * suspect slots, or ends the scan.
	 */
	private void verify() {
		layout().thenCompose((layout) -> {
			List<ClusterNodes.Node> masters = layout.servingMasters();
			List<CompletableFuture<ClusterNodes.Node>> views = new ArrayList<>();
			for (ClusterNodes.Node master : masters) {
				views.add(this.transport.clusterNodes(master).thenApply((reply) -> ClusterNodes.parse(reply).myself()));
			}
			return CompletableFuture.allOf(views.toArray(new CompletableFuture<?>[0]))
				.thenApply((ignored) -> views.stream().map(CompletableFuture::join).toList());
		}).whenComplete((owners, failure) -> {
			if (failure != null) {
				fail(failure);
				return;
			}
			boolean done;
			synchronized (this) {
				if (this.state.isOver()) {
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
					// After a round of rescans: slots that moved, or started or stopped moving, meanwhile are read
					// again. A slot still migrating as before needs no second read: its rescan read the source
					// before the importer.
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
					this.state = State.RESCANNING;
				}
			}
			if (done) {
				// Observed before the consumer can see the end, so that meters are current when a scan returns.
				finished(ScanObserver.Outcome.COMPLETE);
				synchronized (this) {
					if (this.state.isOver()) {
						return;
					}
					this.state = State.DONE;
				}
				signal();
			}
			else {
				pump();
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
	 * Owners first, importers after: a key that migrates between the two reads is found on the importer.
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
					int[] chunk = slots.subList(from, Math.min(slots.size(), from + SLOTS_PER_RESCAN)).stream()
						.mapToInt(Integer::intValue).toArray();
					this.rescans.add(new Rescan(entry.getKey(), chunk));
				}
			}
		}
	}

	private void rescan(Rescan rescan) {
		this.transport.keysInSlots(rescan.node, rescan.slots, this.type != null).whenComplete((keys, failure) -> {
			if (failure != null) {
				fail(failure);
				return;
			}
			List<byte[]> toRemove = null;
			synchronized (this) {
				if (this.state.isOver()) {
					return;
				}
				List<byte[]> found = new ArrayList<>();
				for (ScanTransport.TypedKey key : keys) {
					if ((this.match == null || Glob.matches(this.match, key.key()))
							&& (this.type == null || this.type.equalsIgnoreCase(key.type()))) {
						found.add(key.key());
					}
				}
				if (!found.isEmpty() && this.removeAtSource) {
					this.rescanned += found.size();
					this.removing += found.size();
					// Still rescanning until they are removed: verify() must not run before.
					toRemove = found;
				}
				else {
					if (!found.isEmpty()) {
						this.buffer.add(found);
						this.buffered += found.size();
						this.rescanned += found.size();
					}
					this.rescanning = false;
				}
			}
			if (toRemove != null) {
				removeThenBuffer(rescan.node, toRemove, () -> this.rescanning = false);
				return;
			}
			signal();
			pump();
		});
	}

	/**
	 * Returns the next buffered page of keys without waiting.
	 * @return the keys, never empty, or {@code null} when none is buffered
	 */
	@Nullable List<byte[]> pollPage() {
		List<byte[]> page;
		boolean low;
		synchronized (this) {
			page = this.buffer.poll();
			if (page == null) {
				return null;
			}
			this.buffered -= page.size();
			this.returned += page.size();
			// Only when a page could start: a walk idle (neither reading nor ended) and room in flight and in the
			// buffer, or a rescan due.
			low = this.buffered + this.removing < this.settings.readAhead() && ((this.state == State.WALKING
					&& this.running < this.settings.concurrency() && this.running < this.unfinished)
					|| (this.state == State.RESCANNING && !this.rescanning));
		}
		if (low) {
			pump();
		}
		return page;
	}

	/**
	 * Returns the next page of keys, waiting for one.
	 * @return the keys, never empty, or {@code null} at the end
	 * @throws DataAccessException when the scan failed
	 */
	@Nullable List<byte[]> takePage() {
		while (true) {
			List<byte[]> page = pollPage();
			if (page != null) {
				return page;
			}
			synchronized (this) {
				if (!this.buffer.isEmpty()) {
					continue;
				}
				if (this.failure != null) {
					throw translate(this.failure);
				}
				if (this.state == State.DONE || this.state == State.CLOSED) {
					return null;
				}
				try {
					this.waiting++;
					try {
						wait(100);
					}
					finally {
						this.waiting--;
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new DataAccessResourceFailureException("Interrupted while waiting for scanned keys", ex);
				}
			}
		}
	}

	/**
	 * Tells whether every key was handed out and the scan ended.
	 * @return whether it is over
	 */
	synchronized boolean isFinished() {
		return this.buffer.isEmpty() && (this.state == State.DONE || this.state == State.CLOSED);
	}

	/**
	 * Returns why the scan failed.
	 * @return the failure, translated, or {@code null}
	 */
	synchronized @Nullable DataAccessException failure() {
		return (this.failure != null) ? translate(this.failure) : null;
	}

	/**
	 * Stops every walk: no page is requested after this, and buffered keys are dropped.
	 */
	void close() {
		synchronized (this) {
			if (this.state.isOver()) {
				return;
			}
			this.state = State.CLOSED;
			this.buffer.clear();
			this.buffered = 0;
			this.removed.clear();
			notifyAll();
		}
		finished(ScanObserver.Outcome.CLOSED);
	}

	/**
	 * Returns how many walks started over on another node.
	 * @return the restarts
	 */
	synchronized long restarts() {
		return this.restarts;
	}

	/**
	 * Returns how many keys came from restarted walks or slot rescans.
	 * @return the possibly duplicated keys
	 */
	synchronized long rescanned() {
		return this.rescanned;
	}

	private void fail(Throwable failure) {
		synchronized (this) {
			if (this.state.isOver()) {
				return;
			}
			this.state = State.FAILED;
			this.failure = unwrap(failure);
			notifyAll();
		}
		finished(ScanObserver.Outcome.FAILED);
		signal();
	}

	private void finished(ScanObserver.Outcome outcome) {
		long keys;
		long rescanned;
		long restarts;
		synchronized (this) {
			notifyAll();
			keys = this.returned + this.buffered;
			rescanned = this.rescanned;
			restarts = this.restarts;
		}
		long duration = System.nanoTime() - this.started;
		this.observer.scanned(keys, rescanned, restarts, outcome, duration);
		if (this.cacheClear && outcome == ScanObserver.Outcome.COMPLETE) {
			this.observer.cleared(keys, duration);
		}
	}

	private void signal() {
		Runnable signal;
		synchronized (this) {
			// Only a consumer that found nothing waits; one that is busy with earlier pages needs no wake-up (with
			// small pages, one per page was a context switch per SCAN).
			if (this.waiting > 0) {
				notifyAll();
			}
			signal = this.signal;
		}
		signal.run();
	}

	private static DataAccessException translate(Throwable failure) {
		if (failure instanceof DataAccessException translated) {
			return translated;
		}
		if (failure instanceof ScanTransport.ServerError) {
			return new InvalidDataAccessApiUsageException("The cluster-wide scan was refused: " + failure.getMessage(),
					failure);
		}
		return new DataAccessResourceFailureException("The cluster-wide scan failed: " + failure.getMessage(), failure);
	}

	private static @Nullable Throwable unwrap(@Nullable Throwable failure) {
		Throwable cause = failure;
		while (cause instanceof CompletionException && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	private enum State {

		NEW, STARTING, WALKING, VERIFYING, RESCANNING, DONE, CLOSED, FAILED;

		boolean isOver() {
			return this == DONE || this == CLOSED || this == FAILED;
		}

	}

	/**
	 * One master's walk.
	 */
	private static final class Walk {

		private ClusterNodes.Node master;

		private ClusterNodes.Node node;

		private BitSet startSlots = new BitSet(ClusterNodes.SLOTS);

		private String cursor = "0";

		private boolean inFlight;

		private boolean finished;

		private boolean restarted;

		Walk(ClusterNodes.Node master, ClusterNodes.Node node) {
			this.master = master;
			this.node = node;
		}

	}

	private record Rescan(ClusterNodes.Node node, int[] slots) {
	}

}
