package dev.slotwise.internal.compat;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.csc.Cache;
import redis.clients.jedis.providers.ClusterConnectionProvider;

/**
 * Jedis's cluster connection provider, whose slot cache renewals without a connection
 * start at most once per interval. Jedis's cluster executor renews the slot cache after
 * every second consecutive connection failure of a command, and skips a renewal only
 * while another one runs: while a master is down, every calling thread renews after each
 * pair of failed attempts, and the shorter the retry time of a command, the more often.
 * Before the replica is promoted, every renewal returns the same slot table; one renewal
 * per interval finds the promotion as well.
 * <p>
 * A renewal with a connection ({@code MOVED}, the server naming the new owner of a slot)
 * is not paced, nor are Slotwise's own renewals ({@link #renewNow()}), which its topology
 * provider paces already.
 */
final class PacedClusterConnectionProvider extends ClusterConnectionProvider {

	private final long intervalNanos;

	/**
	 * {@link System#nanoTime()} of the last renewal started here; the interval has passed
	 * at construction.
	 */
	private final AtomicLong lastStart;

	PacedClusterConnectionProvider(Set<HostAndPort> nodes, JedisClientConfig clientConfig, @Nullable Cache cache,
			GenericObjectPoolConfig<Connection> poolConfig, @Nullable Duration topologyRefreshPeriod,
			Duration interval) {
		super(nodes, clientConfig, cache, poolConfig, topologyRefreshPeriod);
		this.intervalNanos = interval.toNanos();
		this.lastStart = new AtomicLong(System.nanoTime() - this.intervalNanos);
	}

	/**
	 * Renews the slot cache unless a renewal started here less than the interval ago;
	 * callers that lose go on with the slot cache as it is, as Jedis's callers do while
	 * another thread renews.
	 */
	@Override
	public void renewSlotCache() {
		long now = System.nanoTime();
		long last = this.lastStart.get();
		if (now - last < this.intervalNanos || !this.lastStart.compareAndSet(last, now)) {
			return;
		}
		super.renewSlotCache();
	}

	/**
	 * Renews the slot cache now, whatever the interval; Jedis still runs one renewal at a
	 * time.
	 */
	void renewNow() {
		super.renewSlotCache();
	}

}
