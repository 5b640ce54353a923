package dev.slotwise.internal.cluster;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.internal.topology.LettuceTopology;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.cluster.RedisClusterClient;

/**
 * Asks Lettuce to reload its partitions after a {@code MOVED} reply or a node failure
 * seen by the engine: at most one reload in flight and at most one per minimum interval,
 * so that a burst of redirects cannot storm the cluster.
 */
final class LettucePartitionRefresher {

	private final long minIntervalNanos;

	private final SlotwiseLettuceConnectionFactory factory;

	private final AtomicBoolean refreshing = new AtomicBoolean();

	private final AtomicLong last;

	LettucePartitionRefresher(SlotwiseLettuceConnectionFactory factory, Duration minInterval) {
		this.factory = factory;
		this.minIntervalNanos = minInterval.toNanos();
		this.last = new AtomicLong(System.nanoTime() - this.minIntervalNanos);
	}

	/**
	 * Asks for a reload on behalf of a call routed at {@code routedAt}; nothing when the
	 * client applied a topology change since then, which explains what the call saw
	 * (issue 19: in a fleet, the calls in flight when a failover is found fail or time
	 * out just after it, and each asked for one more refresh).
	 */
	void refresh(long routedAt) {
		long now = System.nanoTime();
		if (now - this.last.get() < this.minIntervalNanos) {
			return;
		}
		AbstractRedisClient client = this.factory.getNativeClient();
		if (client instanceof RedisClusterClient cluster && LettuceTopology.changedSince(cluster, routedAt)) {
			return;
		}
		if (!this.refreshing.compareAndSet(false, true)) {
			return;
		}
		this.last.set(now);
		if (client instanceof RedisClusterClient cluster) {
			cluster.refreshPartitionsAsync().whenComplete((ignored, failure) -> this.refreshing.set(false));
		}
		else {
			this.refreshing.set(false);
		}
	}

}
