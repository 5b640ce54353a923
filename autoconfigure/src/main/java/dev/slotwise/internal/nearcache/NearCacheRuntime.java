package dev.slotwise.internal.nearcache;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.SlotHash;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * The near cache of an application: the local tier, and the tracking of the connection
 * factory's current client (a restarted factory has a new client, and tracking starts
 * over on it). It owns one scheduler thread, which follows the topology, and over Jedis
 * one reader thread per node; all end with the application context.
 */
public final class NearCacheRuntime implements DisposableBean, SmartInitializingSingleton {

	/**
	 * How often the tracking compares its links with the client's view of the cluster.
	 */
	static final Duration CHECK_INTERVAL = Duration.ofMillis(200);

	private final NearCache cache;

	private final ScheduledExecutorService scheduler;

	private final ExecutorService readers;

	private @Nullable Tracking tracking;

	/**
	 * The client tracking runs on: read without the lock on every connection, changed
	 * under it.
	 */
	private volatile @Nullable Object client;

	private boolean contextReady;

	private @Nullable Object pendingClient;

	private @Nullable Supplier<InvalidationLinks> pendingLinks;

	private boolean destroyed;

	/**
	 * Creates the runtime; nothing runs until the first connection opens once the
	 * application context has created its singletons.
	 * @param cache the local tier
	 */
	public NearCacheRuntime(NearCache cache) {
		this.cache = cache;
		this.scheduler = Executors.newSingleThreadScheduledExecutor(threads("slotwise-near-cache"));
		this.readers = Executors.newCachedThreadPool(threads("slotwise-near-cache-reader-"));
	}

	private static ThreadFactory threads(String name) {
		AtomicInteger count = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, name.endsWith("-") ? name + count.incrementAndGet() : name);
			thread.setDaemon(true);
			return thread;
		};
	}

	/**
	 * Returns the local tier.
	 * @return the cache
	 */
	public NearCache cache() {
		return this.cache;
	}

	/**
	 * Makes sure tracking runs on the given client: called when a connection of it opens
	 * (the client is started by then). A new client (a restarted factory) ends the
	 * tracking on the earlier one, and what it kept goes.
	 * @param client the started client
	 * @param links opens the client's invalidation links, called once per client
	 */
	void ensureTracking(Object client, Supplier<InvalidationLinks> links) {
		if (this.client == client) {
			return;
		}
		Tracking previous;
		Tracking started;
		synchronized (this) {
			if (this.client == client || this.destroyed) {
				return;
			}
			if (!this.contextReady) {
				// Connections opened while the context starts (pre-warm, health) come
				// before the cache manager has registered its caches' prefixes: tracking
				// starts once every singleton exists, with all of them.
				this.pendingClient = client;
				this.pendingLinks = links;
				return;
			}
			previous = this.tracking;
			started = new Tracking(this.cache, links.get(), this.scheduler, CHECK_INTERVAL);
			this.tracking = started;
			this.client = client;
		}
		if (previous != null) {
			previous.close();
		}
		started.start();
	}

	@Override
	public void afterSingletonsInstantiated() {
		Object client;
		Supplier<InvalidationLinks> links;
		synchronized (this) {
			this.contextReady = true;
			client = this.pendingClient;
			links = this.pendingLinks;
			this.pendingClient = null;
			this.pendingLinks = null;
		}
		if (client != null && links != null) {
			ensureTracking(client, links);
		}
	}

	ExecutorService readers() {
		return this.readers;
	}

	/**
	 * Returns each node's invalidation link state, for health details.
	 * @return the state per node, empty before tracking started
	 */
	public synchronized Map<String, String> links() {
		Tracking tracking = this.tracking;
		return (tracking != null) ? tracking.linkStates() : Map.of();
	}

	/**
	 * Returns why the servers refused tracking, if they did.
	 * @return the reason, or {@code null}
	 */
	public synchronized @Nullable String refused() {
		Tracking tracking = this.tracking;
		return (tracking != null) ? tracking.refused() : null;
	}

	/**
	 * Counts the entries of each master, for the gauge and health details.
	 * @return the entries per master, {@code host:port}
	 */
	public Map<String, Integer> entriesPerMaster() {
		Tracking tracking;
		synchronized (this) {
			tracking = this.tracking;
		}
		Shards view = (tracking != null) ? tracking.view() : Shards.NONE;
		return this.cache.entriesPer((slot) -> {
			var owner = view.owner(slot);
			return (owner != null) ? owner.toString() : null;
		});
	}

	/**
	 * Returns the masters of the cluster as the tracking last saw it, for the
	 * entries-per-master gauge (masters that hold no entry included).
	 * @return the masters, {@code host:port}, sorted; empty before tracking started
	 */
	public Set<String> masters() {
		Tracking tracking;
		synchronized (this) {
			tracking = this.tracking;
		}
		Shards view = (tracking != null) ? tracking.view() : Shards.NONE;
		Set<String> masters = new TreeSet<>();
		NodeAddress last = null;
		for (int slot = 0; slot < SlotHash.SLOT_COUNT; slot++) {
			NodeAddress owner = view.owner(slot);
			// Slots come in ranges: compare with the previous owner before building a
			// string.
			if (owner != null && !owner.equals(last)) {
				masters.add(owner.toString());
			}
			last = owner;
		}
		return masters;
	}

	@Override
	public void destroy() {
		Tracking tracking;
		synchronized (this) {
			this.destroyed = true;
			tracking = this.tracking;
			this.tracking = null;
		}
		if (tracking != null) {
			tracking.close();
		}
		this.scheduler.shutdownNow();
		this.readers.shutdownNow();
		try {
			this.scheduler.awaitTermination(5, TimeUnit.SECONDS);
			this.readers.awaitTermination(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
