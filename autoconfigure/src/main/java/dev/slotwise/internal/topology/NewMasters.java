package dev.slotwise.internal.topology;

import java.time.Duration;
import java.util.Collection;
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
 * Notices masters that serve slots in a refreshed topology but served none in the previous one (a master added and
 * given slots, a replica promoted) and hands them to a listener, typically pre-warm, on a thread of its own: the
 * refresh runs on a caller's thread, which must not pay for opening connections to a node it may not even need. That
 * thread starts with the first such event, ends after a second without one, and {@link #close()} (when the
 * connection factory stops) ends it for good.
 * <p>
 * Jedis creates a node's pool only when its slot table names the node, which may lag behind {@code CLUSTER NODES};
 * when a new master has no pool yet, Jedis's slot table is renewed first so that the pool exists to be filled.
 */
final class NewMasters implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(NewMasters.class);

	/** How long the notifying thread waits for another event before it ends. */
	private static final Duration IDLE_THREAD_KEEP_ALIVE = Duration.ofSeconds(1);

	private final ThreadPoolExecutor notifier;

	private final Supplier<Map<String, ConnectionPool>> pools;

	private final Runnable renewSlotTable;

	private volatile @Nullable Consumer<Collection<RedisClusterNode>> listener;

	/**
	 * @param pools the client's pools by the address it keys them by
	 * @param renewSlotTable makes the client re-read its slot table, creating the pools of nodes it had not seen
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

	void listen(Consumer<Collection<RedisClusterNode>> listener) {
		this.listener = listener;
	}

	/**
	 * Compares two topologies and, when masters serve slots now that did not before, calls the listener with them on
	 * the notifying thread (events in order, one at a time). The first topology is left alone: start-up pre-warm covers it.
	 * @param previous the topology served so far, {@code null} for none
	 * @param current the topology just fetched
	 */
	void compare(@Nullable ClusterTopology previous, ClusterTopology current) {
		Consumer<Collection<RedisClusterNode>> listener = this.listener;
		if (listener == null || previous == null) {
			return;
		}
		Set<String> before = new HashSet<>();
		for (RedisClusterNode master : servingMasters(previous)) {
			before.add(master.asString());
		}
		List<RedisClusterNode> added = servingMasters(current).stream()
			.filter((master) -> !before.contains(master.asString()))
			.toList();
		if (added.isEmpty()) {
			return;
		}
		try {
			this.notifier.execute(() -> notify(listener, added));
		}
		catch (RejectedExecutionException ex) {
			// Closed: the factory stopped, and nobody needs the new masters' pools any more.
		}
	}

	/**
	 * Ends the notifying thread, interrupting the event it runs, if any; later events are ignored.
	 */
	@Override
	public void close() {
		this.notifier.shutdownNow();
	}

	private void notify(Consumer<Collection<RedisClusterNode>> listener, List<RedisClusterNode> added) {
		try {
			Map<String, ConnectionPool> pools = this.pools.get();
			if (!added.stream().allMatch((master) -> JedisNodePools.find(pools, master) != null)) {
				this.renewSlotTable.run();
			}
			listener.accept(added);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not prepare the connections to the new masters " + added + ": " + ex);
		}
	}

	private static List<RedisClusterNode> servingMasters(ClusterTopology topology) {
		return topology.getActiveMasterNodes()
			.stream()
			.filter((master) -> master.hasValidHost() && !master.getSlotRange().getSlots().isEmpty())
			.toList();
	}

}
