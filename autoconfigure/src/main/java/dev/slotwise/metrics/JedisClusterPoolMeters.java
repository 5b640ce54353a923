package dev.slotwise.metrics;

import java.util.Map;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.RedisClusterClient;

/**
 * Meters for the per-node connection pools of a Jedis cluster client, tagged with the node ({@code host:port}):
 * <ul>
 * <li>{@code slotwise.pool.connections} (gauge, tag {@code state} = {@code active} or {@code idle})</li>
 * <li>{@code slotwise.pool.waiting} (gauge): threads waiting for a connection</li>
 * <li>{@code slotwise.pool.borrow.wait.mean} (gauge, seconds): mean wait of recent borrows</li>
 * <li>{@code slotwise.pool.connections.created}, {@code slotwise.pool.connections.destroyed},
 * {@code slotwise.pool.borrows} (counters)</li>
 * </ul>
 * Nodes are those the client knows when the meters are bound; the meters read the pools only when scraped.
 */
public class JedisClusterPoolMeters implements MeterBinder {

	private final RedisClusterClient client;

	/**
	 * Creates meters for a started cluster client.
	 * @param client the client whose node pools to observe
	 */
	public JedisClusterPoolMeters(RedisClusterClient client) {
		this.client = client;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (Map.Entry<String, ConnectionPool> node : this.client.getClusterNodes().entrySet()) {
			Tags tags = Tags.of("node", node.getKey());
			ConnectionPool pool = node.getValue();
			gauge(registry, "slotwise.pool.connections", tags.and("state", "active"), pool,
					ConnectionPool::getNumActive, "Connections borrowed from the node's pool");
			gauge(registry, "slotwise.pool.connections", tags.and("state", "idle"), pool, ConnectionPool::getNumIdle,
					"Idle connections in the node's pool");
			gauge(registry, "slotwise.pool.waiting", tags, pool, ConnectionPool::getNumWaiters,
					"Threads waiting for a connection to the node");
			Gauge.builder("slotwise.pool.borrow.wait.mean", pool,
					(p) -> p.getMeanBorrowWaitDuration().toNanos() / 1e9)
				.tags(tags)
				.baseUnit("seconds")
				.description("Mean time recent borrows waited for a connection to the node")
				.register(registry);
			counter(registry, "slotwise.pool.connections.created", tags, pool, ConnectionPool::getCreatedCount,
					"Connections opened to the node");
			counter(registry, "slotwise.pool.connections.destroyed", tags, pool, ConnectionPool::getDestroyedCount,
					"Connections to the node closed, including those found dead");
			counter(registry, "slotwise.pool.borrows", tags, pool, ConnectionPool::getBorrowedCount,
					"Connections borrowed from the node's pool");
		}
	}

	private static void gauge(MeterRegistry registry, String name, Tags tags, ConnectionPool pool,
			ToDoubleFunction<ConnectionPool> value, String description) {
		Gauge.builder(name, pool, value).tags(tags).description(description).register(registry);
	}

	private static void counter(MeterRegistry registry, String name, Tags tags, ConnectionPool pool,
			ToDoubleFunction<ConnectionPool> value, String description) {
		FunctionCounter.builder(name, pool, value).tags(tags).description(description).register(registry);
	}

}
