package dev.slotwise.internal.keyspace;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.slotwise.internal.routing.SlotHash;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The removal of a cache clear's keys where its walks found them: every key a master's
 * {@code SCAN} returns lives on that master, so the keys of each page are unlinked there
 * (one {@code UNLINK} per slot, pipelined) before they are handed out, and the clear's
 * own delete then takes back those removed ({@link #claimRemoved(byte[][])}) and deletes
 * only the others. Guarded by the scan's monitor.
 */
final class ScanRemoval {

	private static final Log logger = LogFactory.getLog(ClusterScan.class);

	/**
	 * Keys per {@code UNLINK} when a cache clear removes keys where they were found (one
	 * slot per command).
	 */
	private static final int MAX_KEYS_PER_UNLINK = 1000;

	private final ClusterScan scan;

	private final ScanTransport transport;

	private final Duration timeout;

	private final ScanReadAhead readAhead;

	/**
	 * Keys removed where their walk found them, until the cache clear's own delete of
	 * them claims them.
	 */
	private final Set<byte[]> removed = Collections.newSetFromMap(new IdentityHashMap<>());

	ScanRemoval(ClusterScan scan, ScanTransport transport, Duration timeout, ScanReadAhead readAhead) {
		this.scan = scan;
		this.transport = transport;
		this.timeout = timeout;
		this.readAhead = readAhead;
	}

	/**
	 * Removes keys on the master whose walk (or rescan) found them, one {@code UNLINK}
	 * per slot, then hands them to the consumer, those removed marked so. A key the
	 * master did not remove (a redirect: its slot moved; a node that stopped answering)
	 * is handed out unmarked: the cache clear's own delete, routed as usual, removes it.
	 * The keys were counted into removal by the caller.
	 * @param then runs under the scan's monitor once the removal ended
	 */
	void removeThenBuffer(ClusterNodes.Node master, List<byte[]> keys, @Nullable Runnable then) {
		Map<Integer, List<byte[]>> bySlot = new LinkedHashMap<>();
		for (byte[] key : keys) {
			bySlot.computeIfAbsent(SlotHash.slot(key), (slot) -> new ArrayList<>(2)).add(key);
		}
		List<byte[][]> groups = new ArrayList<>(bySlot.size());
		for (List<byte[]> group : bySlot.values()) {
			for (int from = 0; from < group.size(); from += MAX_KEYS_PER_UNLINK) {
				groups.add(
						group.subList(from, Math.min(group.size(), from + MAX_KEYS_PER_UNLINK)).toArray(new byte[0][]));
			}
		}
		CompletableFuture<boolean[]> unlinked;
		try {
			unlinked = this.transport.unlink(master, groups);
		}
		catch (RuntimeException ex) {
			unlinked = CompletableFuture.failedFuture(ex);
		}
		unlinked.orTimeout(this.timeout.toNanos(), TimeUnit.NANOSECONDS).whenComplete((done, failure) -> {
			synchronized (this.scan) {
				this.readAhead.removing(-keys.size());
				if (then != null) {
					then.run();
				}
				if (this.scan.isOver()) {
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
				this.readAhead.add(keys);
			}
			this.readAhead.signal();
			this.scan.pump();
		});
	}

	/**
	 * Takes back, among keys the scan handed out, those it removed itself (compared by
	 * reference: exactly the arrays it returned), so that the cache clear deletes only
	 * the others.
	 * @param keys keys the cache clear is about to delete
	 * @return the keys not removed by the scan, {@code keys} itself when none was
	 */
	byte[][] claimRemoved(byte[][] keys) {
		synchronized (this.scan) {
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
	 * Forgets the removed keys (the scan's monitor held): the scan was closed.
	 */
	void clear() {
		this.removed.clear();
	}

}
