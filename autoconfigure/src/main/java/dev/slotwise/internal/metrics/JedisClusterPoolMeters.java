package dev.slotwise.internal.metrics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.ConnectionPool;

import org.springframework.util.Assert;

/**
 * Meters for the per-node connection pools of a Jedis cluster client, tagged with the
 * node ({@code host:port}, as the cluster reports it):
 * <ul>
 * <li>{@value #CONNECTIONS} (gauge, tag {@code state} = {@code active} or
 * {@code idle});</li>
 * <li>{@value #MAX} (gauge): the pool's maximum size;</li>
 * <li>{@value #WAITING} (gauge): threads waiting for a connection;</li>
 * <li>{@value #BORROW_WAIT} (gauge, seconds): mean wait of the pool's recent
 * borrows;</li>
 * <li>{@value #OPENED}, {@value #CLOSED}, {@value #BORROWS} (counters).</li>
 * </ul>
 * The meters follow the client's pools: gauges and counters read the pool the client
 * holds for the node at the time they are read, so a pool Jedis re-creates (after a node
 * restart, or a full slot-cache reset) is seen at once, with the counts of the pools it
 * replaced carried over so that counters never go backwards. Every few seconds, and
 * whenever a client starts, the set of meters is brought in line with the client's nodes:
 * meters are added for nodes the client added and removed for nodes it dropped.
 * <p>
 * Why not Micrometer's {@code CommonsObjectPool2Metrics}: it finds pools through JMX and
 * tags them with their JMX names ({@code pool-1}, {@code pool-2}, ...), which cannot tell
 * which Redis node a pool serves, change when pools are re-created, and need JMX on.
 */
public final class JedisClusterPoolMeters implements MeterBinder, AutoCloseable {

	/** Name of the connections gauge. */
	public static final String CONNECTIONS = "slotwise.pool.connections";

	/** Name of the pool size limit gauge. */
	public static final String MAX = "slotwise.pool.connections.max";

	/** Name of the waiting threads gauge. */
	public static final String WAITING = "slotwise.pool.waiting";

	/** Name of the mean borrow wait gauge. */
	public static final String BORROW_WAIT = "slotwise.pool.borrow.wait.mean";

	/**
	 * Name of the counter of connections opened. Not {@code ...created}: Prometheus
	 * reserves the {@code _created} suffix and its client would fold the counter into the
	 * {@value #CONNECTIONS} gauge's name.
	 */
	public static final String OPENED = "slotwise.pool.connections.opened";

	/** Name of the counter of connections closed, including those found dead. */
	public static final String CLOSED = "slotwise.pool.connections.closed";

	/** Name of the counter of borrows. */
	public static final String BORROWS = "slotwise.pool.borrows";

	private static final Duration DEFAULT_SYNC_INTERVAL = Duration.ofSeconds(5);

	private final Duration syncInterval;

	private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

	private final Map<String, NodeMeters> nodes = new HashMap<>();

	private volatile Supplier<Map<String, ConnectionPool>> pools = Map::of;

	private @Nullable ScheduledExecutorService syncer;

	private boolean closed;

	private boolean following;

	/**
	 * Creates meters that follow no client until {@link #follow(Supplier)} is called.
	 */
	public JedisClusterPoolMeters() {
		this(DEFAULT_SYNC_INTERVAL);
	}

	JedisClusterPoolMeters(Duration syncInterval) {
		this.syncInterval = syncInterval;
	}

	/**
	 * Makes the meters follow the pools a source returns, typically a running client's
	 * {@code RedisClusterClient.getClusterNodes()}; replaces any earlier source.
	 * @param pools returns the client's current pools by {@code host:port}, empty when it
	 * is not running; called from the scraping thread and must be cheap and must not
	 * throw
	 */
	public synchronized void follow(Supplier<Map<String, ConnectionPool>> pools) {
		Assert.notNull(pools, "'pools' must not be null");
		this.pools = pools;
		this.following = true;
		startSyncing();
		sync();
	}

	@Override
	public synchronized void bindTo(MeterRegistry registry) {
		Assert.notNull(registry, "'registry' must not be null");
		if (this.closed) {
			return;
		}
		this.registries.add(registry);
		this.nodes.values().forEach((node) -> node.register(registry));
		startSyncing();
		sync();
	}

	/**
	 * Starts the periodic sync once there is both a registry and a client to follow: an
	 * application on Lettuce with Jedis on the class path gets no thread.
	 */
	private void startSyncing() {
		if (this.syncer != null || this.closed || !this.following || this.registries.isEmpty()) {
			return;
		}
		ScheduledExecutorService syncer = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "slotwise-pool-meters");
			thread.setDaemon(true);
			return thread;
		});
		long period = this.syncInterval.toMillis();
		syncer.scheduleWithFixedDelay(this::sync, period, period, TimeUnit.MILLISECONDS);
		this.syncer = syncer;
	}

	/**
	 * Adds meters for nodes the client added since the last call and removes those of
	 * nodes it dropped.
	 */
	public synchronized void sync() {
		if (this.closed || this.registries.isEmpty()) {
			return;
		}
		Map<String, ConnectionPool> current = currentPools();
		current.forEach((node, pool) -> this.nodes.computeIfAbsent(node, (key) -> {
			NodeMeters meters = new NodeMeters(key);
			this.registries.forEach(meters::register);
			return meters;
		}).track(pool));
		this.nodes.entrySet().removeIf((entry) -> {
			if (current.containsKey(entry.getKey())) {
				return false;
			}
			entry.getValue().remove();
			return true;
		});
	}

	private Map<String, ConnectionPool> currentPools() {
		try {
			return this.pools.get();
		}
		catch (RuntimeException ex) {
			// A client stopping while it is read: it has no pools any more.
			return Map.of();
		}
	}

	/**
	 * Stops following the client. Registered meters stay until their registry closes.
	 */
	@Override
	public synchronized void close() {
		this.closed = true;
		if (this.syncer != null) {
			this.syncer.shutdownNow();
			this.syncer = null;
		}
	}

	/**
	 * The meters of one node in every registry, reading whichever pool the client holds
	 * for the node now.
	 */
	private final class NodeMeters {

		private final String node;

		private final Tags tags;

		private final List<Meter> meters = new ArrayList<>();

		/**
		 * The pool last seen for the node, and the final counts of the pools it replaced.
		 */
		private Carried carried = new Carried(null, 0, 0, 0);

		NodeMeters(String node) {
			this.node = node;
			this.tags = Tags.of("node", node);
		}

		void register(MeterRegistry registry) {
			this.meters.add(gauge(registry, CONNECTIONS, this.tags.and("state", "active"), ConnectionPool::getNumActive,
					"Connections borrowed from the node's pool"));
			this.meters.add(gauge(registry, CONNECTIONS, this.tags.and("state", "idle"), ConnectionPool::getNumIdle,
					"Idle connections in the node's pool"));
			this.meters.add(gauge(registry, MAX, this.tags, GenericObjectPool::getMaxTotal,
					"Most connections the node's pool may hold"));
			this.meters.add(gauge(registry, WAITING, this.tags, ConnectionPool::getNumWaiters,
					"Threads waiting for a connection to the node"));
			this.meters.add(Gauge
				.builder(BORROW_WAIT, this,
						(self) -> self.read((pool) -> pool.getMeanBorrowWaitDuration().toNanos() / 1e9))
				.tags(this.tags)
				.baseUnit("seconds")
				.description("Mean time recent borrows waited for a connection to the node")
				.register(registry));
			this.meters.add(counter(registry, OPENED, ConnectionPool::getCreatedCount, Carried::opened,
					"Connections opened to the node"));
			this.meters.add(counter(registry, CLOSED, ConnectionPool::getDestroyedCount, Carried::closed,
					"Connections to the node closed, including those found dead"));
			this.meters.add(counter(registry, BORROWS, ConnectionPool::getBorrowedCount, Carried::borrows,
					"Connections borrowed from the node's pool"));
		}

		private Gauge gauge(MeterRegistry registry, String name, Tags tags, ToDoubleFunction<ConnectionPool> value,
				String description) {
			return Gauge.builder(name, this, (self) -> self.read(value))
				.tags(tags)
				.description(description)
				.register(registry);
		}

		private FunctionCounter counter(MeterRegistry registry, String name, ToLongFunction<ConnectionPool> value,
				ToLongFunction<Carried> earlier, String description) {
			return FunctionCounter.builder(name, this, (self) -> self.count(value, earlier))
				.tags(this.tags)
				.description(description)
				.register(registry);
		}

		double read(ToDoubleFunction<ConnectionPool> value) {
			ConnectionPool pool = currentPools().get(this.node);
			return (pool != null) ? value.applyAsDouble(pool) : Double.NaN;
		}

		synchronized double count(ToLongFunction<ConnectionPool> value, ToLongFunction<Carried> earlier) {
			Carried carried = track(currentPools().get(this.node));
			ConnectionPool latest = carried.pool;
			return earlier.applyAsLong(carried) + ((latest != null) ? value.applyAsLong(latest) : 0);
		}

		/**
		 * Notes a pool the client holds for the node now, carrying over the counts of the
		 * one it replaced.
		 */
		synchronized Carried track(@Nullable ConnectionPool pool) {
			Carried carried = this.carried;
			if (pool != null && pool != carried.pool) {
				carried = carried.replacedBy(pool);
				this.carried = carried;
			}
			return carried;
		}

		void remove() {
			for (Meter meter : this.meters) {
				for (MeterRegistry registry : JedisClusterPoolMeters.this.registries) {
					registry.remove(meter);
				}
			}
			this.meters.clear();
		}

	}

	/**
	 * The pool last seen for a node and the final counts of the pools it replaced.
	 */
	private record Carried(@Nullable ConnectionPool pool, long opened, long closed, long borrows) {

		Carried replacedBy(ConnectionPool next) {
			if (this.pool == null) {
				return new Carried(next, this.opened, this.closed, this.borrows);
			}
			return new Carried(next, this.opened + this.pool.getCreatedCount(),
					this.closed + this.pool.getDestroyedCount(), this.borrows + this.pool.getBorrowedCount());
		}

	}

}
