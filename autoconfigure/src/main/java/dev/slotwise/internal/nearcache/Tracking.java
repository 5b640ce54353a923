package dev.slotwise.internal.nearcache;

import java.time.Duration;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.SlotHash;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterTopology;

/**
 * Keeps one {@link InvalidationLink} on every live node of the cluster and tells the
 * {@link NearCache} which slots it may keep: a slot is tracked while every live node of
 * its shard (its master and the master's replicas) has a link ready. It follows the
 * topology on a timer, from the client's cached view, and at once on a lost link:
 * <ul>
 * <li>a lost link untracks its shard's slots at once (their entries go, reads in flight
 * are disowned) and they stay untracked until a new link to that node is ready or the
 * cluster marks the node failed;</li>
 * <li>slots whose owner changed (a failover, a migration, a new master) are flushed,
 * exactly those;</li>
 * <li>a node that says every key changed ({@code FLUSHALL}) flushes its shard;</li>
 * <li>a node that refuses tracking switches the near cache off: one WARN, nothing kept,
 * the application reads Redis as without it.</li>
 * </ul>
 * A periodic check that finds nothing changed flushes nothing.
 */
final class Tracking implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(Tracking.class);

	/**
	 * Checks between fresh views while the view leaves failed nodes out (25 × 200 ms:
	 * every 5 s).
	 */
	private static final int FAILED_LEFT_OUT_REFRESH = 25;

	private final NearCache cache;

	private final InvalidationLinks links;

	private final ScheduledExecutorService scheduler;

	private final Duration interval;

	private final Map<NodeAddress, Link> nodes = new ConcurrentHashMap<>();

	private final AtomicBoolean soon = new AtomicBoolean();

	private final AtomicBoolean fresh = new AtomicBoolean(true);

	private final LinkEvents events = new LinkEvents();

	/** Checks since the view was last asked fresh because it left failed nodes out. */
	private int sinceFailedLeftOut;

	private volatile Shards view = Shards.NONE;

	/** The topology {@link #view} was read from. */
	private @Nullable ClusterTopology viewTopology;

	private volatile @Nullable String refused;

	private volatile boolean closed;

	private @Nullable ScheduledFuture<?> timer;

	Tracking(NearCache cache, InvalidationLinks links, ScheduledExecutorService scheduler, Duration interval) {
		this.cache = cache;
		this.links = links;
		this.scheduler = scheduler;
		this.interval = interval;
		cache.onPrefixesChanged(this::restart);
	}

	/**
	 * Opens the links and starts following the topology.
	 */
	synchronized void start() {
		if (this.timer == null && !this.closed) {
			this.timer = this.scheduler.scheduleWithFixedDelay(this::checkQuietly, 0, this.interval.toMillis(),
					TimeUnit.MILLISECONDS);
		}
	}

	/**
	 * Returns why tracking was refused, if it was.
	 * @return the reason, or {@code null} while the near cache works
	 */
	@Nullable String refused() {
		return this.refused;
	}

	/**
	 * Returns each node's link state, for health details: {@code ready},
	 * {@code connecting}.
	 * @return the state per node, {@code host:port}
	 */
	Map<String, String> linkStates() {
		Map<String, String> states = new LinkedHashMap<>();
		this.view.shardSlots()
			.keySet()
			.stream()
			.map(NodeAddress::toString)
			.sorted()
			.forEach((node) -> states.put(node, "down"));
		this.nodes.forEach((node, link) -> states.put(node.toString(), link.ready ? "ready" : "connecting"));
		return states;
	}

	/**
	 * Returns the current view, for the entries-per-master gauge.
	 * @return the shards
	 */
	Shards view() {
		return this.view;
	}

	private void checkQuietly() {
		try {
			check();
		}
		catch (RuntimeException ex) {
			logger.debug("Near cache tracking check failed; retried at the next check", ex);
		}
	}

	/**
	 * Compares the links with the cluster and the tracked slots with the links. Runs on
	 * the scheduler only.
	 */
	synchronized void check() {
		if (this.closed || this.refused != null) {
			return;
		}
		Shards shards;
		try {
			ClusterTopology topology = this.links.topology(this.fresh.getAndSet(false));
			// Read once per topology: the client hands out the same one until it
			// refreshes, and this runs every 200 ms.
			shards = (topology == this.viewTopology) ? this.view : Shards.of(topology);
			this.viewTopology = topology;
		}
		catch (RuntimeException ex) {
			// No view: keep what is tracked (every link that drops untracks its shard by
			// itself), ask again.
			this.fresh.set(true);
			logger.debug("Near cache cannot read the cluster topology: " + ex);
			return;
		}
		Shards before = this.view;
		this.view = shards;
		// A cached view keeps a node flagged failed after it came back (a killed master
		// restarts as a replica) until the client's next refresh, which may be a minute
		// away: ask anew every few seconds while one is left out, so that it gets its
		// link.
		if (shards.failedLeftOut() && ++this.sinceFailedLeftOut >= FAILED_LEFT_OUT_REFRESH) {
			this.sinceFailedLeftOut = 0;
			this.fresh.set(true);
		}
		for (Map.Entry<NodeAddress, Link> entry : List.copyOf(this.nodes.entrySet())) {
			boolean lost = !entry.getValue().link.isOpen();
			if (!shards.shardSlots().containsKey(entry.getKey()) || lost) {
				this.nodes.remove(entry.getKey(), entry.getValue());
				entry.getValue().link.close();
			}
			if (lost) {
				// Before opening new links below, which may take a while (a Lettuce link
				// connects a cluster connection of its own): the lost link's own report
				// normally came first, this is the net under it.
				this.cache.untrack(onlyTracked(shards.slotsOf(entry.getKey())), "link-lost");
			}
		}
		List<byte[]> prefixes = this.cache.trackedPrefixes();
		for (NodeAddress node : shards.shardSlots().keySet()) {
			if (!this.nodes.containsKey(node)) {
				open(node, prefixes);
			}
		}
		BitSet moved = shards.movedSince(before);
		this.cache.flush(moved, "topology");
		BitSet tracked = trackable(shards);
		BitSet untracked = (BitSet) tracked.clone();
		untracked.flip(0, SlotHash.SLOT_COUNT);
		this.cache.untrack(onlyTracked(untracked), "link-lost");
		this.cache.track(tracked);
		this.nodes.values().forEach((link) -> {
			if (link.ready) {
				link.link.heartbeat();
			}
		});
		// A link lost while this check ran untracked its shard before the line above may
		// have tracked it again: links close before they report, so looking once more
		// after tracking catches every such loss.
		for (Map.Entry<NodeAddress, Link> entry : this.nodes.entrySet()) {
			if (!entry.getValue().link.isOpen()) {
				this.cache.untrack(onlyTracked(shards.slotsOf(entry.getKey())), "link-lost");
			}
		}
	}

	/**
	 * Returns the slots that may be tracked: those with an owner whose shard's every live
	 * node has a ready link (set operations, not a look per slot: this runs every 200
	 * ms).
	 */
	private BitSet trackable(Shards shards) {
		BitSet trackable = shards.ownedSlots();
		for (Map.Entry<NodeAddress, BitSet> entry : shards.shardSlots().entrySet()) {
			Link link = this.nodes.get(entry.getKey());
			if (link == null || !link.ready || !link.link.isOpen()) {
				trackable.andNot(entry.getValue());
			}
		}
		return trackable;
	}

	private BitSet onlyTracked(BitSet slots) {
		BitSet result = new BitSet(SlotHash.SLOT_COUNT);
		slots.stream().filter(this.cache::tracked).forEach(result::set);
		return result;
	}

	private void open(NodeAddress node, List<byte[]> prefixes) {
		InvalidationLink link;
		try {
			link = this.links.open(node, prefixes, this.events);
		}
		catch (RuntimeException ex) {
			logger.debug("Near cache cannot open an invalidation connection to " + node + ": " + ex);
			checkSoon();
			return;
		}
		Link held = new Link(link);
		this.nodes.put(node, held);
		// On the scheduler, never on the client's thread that completes it: refuse()
		// takes this object's lock, which a check holds while it may wait on that very
		// thread.
		link.ready().whenCompleteAsync((ignored, failure) -> {
			if (failure == null) {
				held.ready = true;
				checkSoon();
			}
			else if (unwrap(failure) instanceof TrackingRefusedException refusal) {
				refuse(refusal);
			}
			else {
				logger.debug("Near cache invalidation connection to " + node + " failed: " + failure);
				this.nodes.remove(node, held);
				link.close();
				// The client may not know the node yet (a master just added): look at the
				// cluster afresh.
				this.fresh.set(true);
				checkSoon();
			}
		}, this::runQuietly);
	}

	/** Runs a task on the scheduler, or not at all once the near cache stopped. */
	private void runQuietly(Runnable task) {
		try {
			this.scheduler.execute(task);
		}
		catch (java.util.concurrent.RejectedExecutionException ex) {
			// Stopped: nothing is tracked any more.
		}
	}

	private static Throwable unwrap(Throwable failure) {
		return (failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null)
				? failure.getCause() : failure;
	}

	private void refuse(TrackingRefusedException refusal) {
		synchronized (this) {
			if (this.refused != null || this.closed) {
				return;
			}
			this.refused = refusal.getMessage();
		}
		logger.warn("Slotwise near cache is off: " + refusal.getMessage()
				+ ". Reads go to Redis as without slotwise.near-cache.enabled");
		untrackAll("refused");
		closeLinks();
	}

	private void untrackAll(String cause) {
		BitSet all = new BitSet(SlotHash.SLOT_COUNT);
		all.set(0, SlotHash.SLOT_COUNT);
		this.cache.untrack(onlyTracked(all), cause);
	}

	/**
	 * The tracked prefixes changed: every node must register them anew, and what was kept
	 * under the old ones goes.
	 */
	private void restart() {
		this.scheduler.execute(() -> {
			synchronized (this) {
				untrackAll("restart");
				closeLinks();
			}
			checkQuietly();
		});
	}

	private void closeLinks() {
		for (NodeAddress node : List.copyOf(this.nodes.keySet())) {
			Link link = this.nodes.remove(node);
			if (link != null) {
				link.link.close();
			}
		}
	}

	private void checkSoon() {
		if (!this.closed && this.soon.compareAndSet(false, true)) {
			try {
				this.scheduler.schedule(() -> {
					this.soon.set(false);
					checkQuietly();
				}, 10, TimeUnit.MILLISECONDS);
			}
			catch (java.util.concurrent.RejectedExecutionException ex) {
				// Stopped: nothing is tracked any more.
			}
		}
	}

	@Override
	public void close() {
		synchronized (this) {
			this.closed = true;
			if (this.timer != null) {
				this.timer.cancel(false);
			}
			untrackAll("stopped");
			closeLinks();
		}
		this.links.close();
		this.cache.clear();
	}

	private static final class Link {

		final InvalidationLink link;

		volatile boolean ready;

		Link(InvalidationLink link) {
			this.link = link;
		}

	}

	private final class LinkEvents implements InvalidationLink.Events {

		@Override
		public void invalidated(InvalidationLink link, @Nullable List<byte[]> keys) {
			if (keys != null) {
				Tracking.this.cache.invalidated(keys);
			}
			else {
				// FLUSHALL (or FLUSHDB) on the node: every key of its shard.
				Tracking.this.cache.invalidated(List.of());
				Tracking.this.cache.flush(Tracking.this.view.slotsOf(link.node()), "server");
			}
		}

		@Override
		public void lost(InvalidationLink link, @Nullable Throwable cause) {
			// At once, on the reader's thread: until the slots are untracked, entries
			// invalidated by writes the lost connection would have reported could still
			// be served.
			Tracking.this.cache.untrack(Tracking.this.view.slotsOf(link.node()), "link-lost");
			logger.debug("Near cache invalidation connection to " + link.node() + " lost: " + cause);
			Tracking.this.fresh.set(true);
			checkSoon();
		}

	}

}
