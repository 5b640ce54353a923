package dev.slotwise.internal.topology;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.slotwise.internal.compat.JedisNodePools;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.ConnectionPool;

import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.RedisClusterNode;

/**
 * Notices masters that serve slots in a refreshed topology but served none in the
 * previous one (a master added and given slots, a replica promoted), and those that
 * stopped serving (failed over, demoted, emptied), and hands both to a listener,
 * typically pre-warm and the release of the idle connections kept for a node that no
 * longer serves, on a thread of its own: the refresh runs on a caller's thread, which
 * must not pay for opening connections to a node it may not even need. That thread starts
 * with the first such event, ends after a second without one, and {@link #close()} (when
 * the connection factory stops) ends it for good.
 * <p>
 * Jedis creates a node's pool only when its slot table names the node, which may lag
 * behind {@code CLUSTER NODES}; when a new master has no pool yet, Jedis's slot table is
 * renewed first so that the pool exists to be filled.
 */
final class NewMasters implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(NewMasters.class);

	/** How long the notifying thread waits for another event before it ends. */
	private static final Duration IDLE_THREAD_KEEP_ALIVE = Duration.ofSeconds(1);

	private final ThreadPoolExecutor notifier;

	private final Supplier<Map<String, ConnectionPool>> pools;

	private final Runnable renewSlotTable;

	private volatile @Nullable Consumer<ServingMastersChange> listener;

	/**
	 * @param pools the client's pools by the address it keys them by
	 * @param renewSlotTable makes the client re-read its slot table, creating the pools
	 * of nodes it had not seen
	 */
	NewMasters(Supplier<Map<String, ConnectionPool>> pools, Runnable renewSlotTable) {
		this.pools = pools;
		this.renewSlotTable = renewSlotTable;
		this.notifier = new ThreadPoolExecutor(1, 1, IDLE_THREAD_KEEP_ALIVE.toMillis(), TimeUnit.MILLISECONDS,
				new LinkedBlockingQueue<>(), (task) -> {
					Thread thread = new Thread(task, "slotwise-new-masters");
					thread.setDaemon(true);
					return thread;
				});
		this.notifier.allowCoreThreadTimeOut(true);
	}

	void listen(Consumer<ServingMastersChange> listener) {
		this.listener = listener;
	}

	/**
	 * Compares two topologies and, when the masters serving slots changed, calls the
	 * listener with the change on the notifying thread (events in order, one at a time).
	 * The first topology is left alone: start-up pre-warm covers it.
	 * @param previous the topology served so far, {@code null} for none
	 * @param current the topology just fetched
	 */
	void compare(@Nullable ClusterTopology previous, ClusterTopology current) {
		Consumer<ServingMastersChange> listener = this.listener;
		if (listener == null || previous == null) {
			return;
		}
		List<RedisClusterNode> served = servingMasters(previous);
		List<RedisClusterNode> serving = servingMasters(current);
		List<RedisClusterNode> added = missingFrom(served, serving);
		List<RedisClusterNode> removed = missingFrom(serving, served);
		if (added.isEmpty() && removed.isEmpty()) {
			return;
		}
		ServingMastersChange change = new ServingMastersChange(added, removed);
		try {
			this.notifier.execute(() -> notify(listener, change));
		}
		catch (RejectedExecutionException ex) {
			// Closed: the factory stopped, and nobody needs the new masters' pools any
			// more.
		}
	}

	/**
	 * Ends the notifying thread, interrupting the event it runs, if any; later events are
	 * ignored.
	 */
	@Override
	public void close() {
		this.notifier.shutdownNow();
	}

	private void notify(Consumer<ServingMastersChange> listener, ServingMastersChange change) {
		try {
			Map<String, ConnectionPool> pools = this.pools.get();
			if (!change.added().stream().allMatch((master) -> JedisNodePools.find(pools, master) != null)) {
				this.renewSlotTable.run();
			}
			listener.accept(change);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not adjust the connections to the masters that changed (new: " + change.added()
					+ ", no longer serving: " + change.removed() + "): " + ex);
		}
	}

	/** The masters of {@code masters} whose address is not among {@code others}. */
	private static List<RedisClusterNode> missingFrom(List<RedisClusterNode> others, List<RedisClusterNode> masters) {
		Set<String> addresses = new HashSet<>();
		for (RedisClusterNode other : others) {
			addresses.add(other.asString());
		}
		return masters.stream().filter((master) -> !addresses.contains(master.asString())).toList();
	}

	private static List<RedisClusterNode> servingMasters(ClusterTopology topology) {
		// The slots as an int[]: getSlots() boxes every slot into a new set, some 16,384
		// objects per topology, on the thread that refreshed it (often a caller's).
		return topology.getActiveMasterNodes()
			.stream()
			.filter((master) -> master.hasValidHost() && master.getSlotRange().getSlotsArray().length > 0)
			.toList();
	}

}
