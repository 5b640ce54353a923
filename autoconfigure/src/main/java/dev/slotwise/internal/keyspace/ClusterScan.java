package dev.slotwise.internal.keyspace;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

import dev.slotwise.internal.routing.NodeAddress;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.InvalidDataAccessApiUsageException;

/**
 * One cluster-wide {@code SCAN}: a cursor per master (or per replica of it, when the
 * application reads from replicas), at most {@link ScanSettings#concurrency()} pages in
 * flight, at most about {@link ScanSettings#readAhead()} keys buffered ahead of the
 * consumer ({@link ScanReadAhead}). Driven by its consumer: {@link #pollPage()} and
 * {@link #takePage()} hand out keys a page at a time (one lock per page, not per key) and
 * let the walks read on; {@link #close()} stops every walk (no page is requested after
 * it; connections are the client's own and go back as each page completes).
 * <p>
 * What it returns is what {@code SCAN} promises, across topology changes too: every key
 * present on the cluster for the whole scan is returned at least once; a key may be
 * returned more than once.
 * <ul>
 * <li><b>Failover</b> ({@link WalkRecovery}). A node that stops answering mid-walk is
 * replaced by the master that serves its slots next (found by polling the cluster's
 * layout for up to {@link ScanSettings#failoverTimeout()}), and the walk starts over
 * there from cursor 0: a {@code SCAN} cursor is a position in one server's hash table,
 * seeded per process, so it means nothing on another node. The keys the restarted walk
 * returns count as rescanned (possible duplicates). A master demoted by a manual failover
 * keeps answering as a replica holding the same keys; its walk simply goes on.</li>
 * <li><b>Slot migration</b> ({@link MigrationRescan}). A key migrating from A to B can
 * slip past both cursors. Every walk compares its shard's slots, and the slots its master
 * marks migrating or importing, at the start of the scan and at the end of the walk;
 * every slot that changed or was in motion is read again at the end, key by key. Not
 * covered: a slot that leaves a master and comes back to it within one walk, which no
 * view shows.</li>
 * <li><b>Cache clear</b> ({@link ScanRemoval}). Each page is removed on the master where
 * it was found before it is handed out.</li>
 * </ul>
 * One monitor, this scan's, guards the state here and in those collaborators.
 */
final class ClusterScan {

	private final ScanTransport transport;

	private final ScanObserver observer;

	private final boolean cacheClear;

	private final ScanReadAhead readAhead;

	/**
	 * Removes each page where it was found, for a cache clear; {@code null} otherwise.
	 */
	private final @Nullable ScanRemoval removal;

	private final MigrationRescan migration;

	private final WalkScheduler walks;

	private final long started = System.nanoTime();

	private State state = State.NEW;

	private @Nullable Throwable failure;

	private long rescanned;

	private long restarts;

	/**
	 * @param transport the client
	 * @param settings the limits
	 * @param match the pattern every node filters by, or {@code null}
	 * @param count the count hint sent with every {@code SCAN}, or {@code null}
	 * @param type the type every node filters by, or {@code null}
	 * @param observer sees the scan when it ends
	 * @param cacheClear whether a cache clear runs the scan: it removes every key it
	 * found on the master whose walk found it, before handing it out
	 * ({@link #claimRemoved(byte[][])} tells the cache clear which of its keys are gone
	 * already), and the observer sees the clear
	 */
	ClusterScan(ScanTransport transport, ScanSettings settings, byte @Nullable [] match, @Nullable Long count,
			@Nullable String type, ScanObserver observer, boolean cacheClear) {
		String lowerType = (type != null) ? type.toLowerCase(Locale.ROOT) : null;
		this.cacheClear = cacheClear;
		this.transport = transport;
		this.observer = observer;
		this.readAhead = new ScanReadAhead(this, settings.readAhead());
		this.removal = cacheClear ? new ScanRemoval(this, transport, settings.timeout(), this.readAhead) : null;
		WalkRecovery recovery = new WalkRecovery(this, transport, settings.failoverTimeout());
		this.migration = new MigrationRescan(this, transport, this.readAhead, this.removal, match, lowerType);
		this.walks = new WalkScheduler(this, transport, this.readAhead, this.removal, recovery, this.migration,
				settings.concurrency(), match, count, lowerType);
	}

	/**
	 * Sets what runs whenever keys arrive or the scan ends (a reactive consumer's drain
	 * loop); runs on a client thread.
	 * @param signal the callback
	 */
	void onSignal(Runnable signal) {
		this.readAhead.onSignal(signal);
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
		layout().thenCompose(this.walks::start).whenComplete((ignored, failure) -> {
			if (failure != null) {
				fail(failure);
			}
			else {
				pump();
			}
		});
		return this;
	}

	/**
	 * The node a walk of {@code master}'s keys reads: the master, or one of its replicas
	 * when the application reads from replicas.
	 */
	ClusterNodes.Node walkNode(ClusterNodes layout, ClusterNodes.Node master) {
		return this.walks.walkNode(layout, master);
	}

	/**
	 * The walks start, unless the scan ended meanwhile (the monitor held).
	 * @return whether they start
	 */
	boolean startWalking() {
		if (this.state == State.STARTING) {
			this.state = State.WALKING;
			return true;
		}
		return false;
	}

	/**
	 * Reads the layout from the first node that answers: the walks' masters, then the
	 * client's seeds.
	 */
	CompletableFuture<ClusterNodes> layout() {
		List<NodeAddress> seeds = new ArrayList<>();
		synchronized (this) {
			this.walks.addMasters(seeds);
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
	 * Requests pages while fewer than the concurrency are in flight and the buffer is
	 * below the read-ahead, then, once every walk ended, the rescans.
	 */
	void pump() {
		List<ScanWalk> pages = List.of();
		MigrationRescan.Rescan rescan = null;
		boolean verify = false;
		synchronized (this) {
			if (this.state == State.WALKING) {
				pages = this.walks.claimPages();
				if (this.readAhead.noneRemoving() && this.walks.allFinished()) {
					this.state = State.VERIFYING;
					verify = true;
				}
			}
			else if (this.state == State.RESCANNING && !this.migration.isRescanning() && this.readAhead.hasRoom()) {
				rescan = this.migration.next();
				if (rescan == null) {
					this.state = State.VERIFYING;
					verify = true;
				}
			}
		}
		for (ScanWalk walk : pages) {
			this.walks.page(walk);
		}
		if (rescan != null) {
			this.migration.rescan(rescan);
		}
		if (verify) {
			this.migration.verify();
		}
	}

	/**
	 * Whether a page could start (the monitor held): a walk idle (neither reading nor
	 * ended) and room in flight, or a rescan due.
	 */
	boolean pageCouldStart() {
		return (this.state == State.WALKING && this.walks.canRequest())
				|| (this.state == State.RESCANNING && !this.migration.isRescanning());
	}

	/**
	 * Takes back, among keys this scan handed out, those it removed itself (compared by
	 * reference: exactly the arrays it returned), so that the cache clear deletes only
	 * the others.
	 * @param keys keys the cache clear is about to delete
	 * @return the keys not removed by this scan, {@code keys} itself when none was
	 */
	byte[][] claimRemoved(byte[][] keys) {
		ScanRemoval removal = this.removal;
		return (removal != null) ? removal.claimRemoved(keys) : keys;
	}

	/**
	 * A walk's page request ended without ending the walk (the monitor held).
	 */
	void pageEnded() {
		this.walks.pageEnded();
	}

	/**
	 * A walk started over on another node (the monitor held).
	 */
	void countRestart() {
		this.restarts++;
	}

	/**
	 * Keys came from a slot rescan (the monitor held).
	 */
	void countRescanned(int keys) {
		this.rescanned += keys;
	}

	/**
	 * The rescans of a round were planned (the monitor held).
	 */
	void rescanning() {
		this.state = State.RESCANNING;
	}

	/**
	 * Every walk and rescan ended.
	 */
	void complete() {
		// Observed before the consumer can see the end, so that meters are current when a
		// scan returns.
		finished(ScanObserver.Outcome.COMPLETE);
		synchronized (this) {
			if (this.state.isOver()) {
				return;
			}
			this.state = State.DONE;
		}
		this.readAhead.signal();
	}

	/**
	 * Returns the next buffered page of keys without waiting.
	 * @return the keys, never empty, or {@code null} when none is buffered
	 */
	@Nullable List<byte[]> pollPage() {
		return this.readAhead.pollPage();
	}

	/**
	 * Returns the next page of keys, waiting for one.
	 * @return the keys, never empty, or {@code null} at the end
	 * @throws DataAccessException when the scan failed
	 */
	@Nullable List<byte[]> takePage() {
		return this.readAhead.takePage();
	}

	/**
	 * Tells whether every key was handed out and the scan ended.
	 * @return whether it is over
	 */
	synchronized boolean isFinished() {
		return this.readAhead.isEmpty() && hasEnded();
	}

	/**
	 * Whether the scan ended without failing (the monitor held).
	 */
	boolean hasEnded() {
		return this.state == State.DONE || this.state == State.CLOSED;
	}

	/**
	 * Whether the scan ended, failed or was closed (the monitor held).
	 */
	boolean isOver() {
		return this.state.isOver();
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
			this.readAhead.clear();
			if (this.removal != null) {
				this.removal.clear();
			}
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

	/**
	 * Ends the scan with a failure, unless it is over.
	 */
	void fail(Throwable failure) {
		synchronized (this) {
			if (this.state.isOver()) {
				return;
			}
			this.state = State.FAILED;
			this.failure = unwrap(failure);
			notifyAll();
		}
		finished(ScanObserver.Outcome.FAILED);
		this.readAhead.signal();
	}

	private void finished(ScanObserver.Outcome outcome) {
		long keys;
		long rescanned;
		long restarts;
		synchronized (this) {
			notifyAll();
			keys = this.readAhead.keys();
			rescanned = this.rescanned;
			restarts = this.restarts;
		}
		long duration = System.nanoTime() - this.started;
		this.observer.scanned(keys, rescanned, restarts, outcome, duration);
		if (this.cacheClear && outcome == ScanObserver.Outcome.COMPLETE) {
			this.observer.cleared(keys, duration);
		}
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

	static @Nullable Throwable unwrap(@Nullable Throwable failure) {
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

}
