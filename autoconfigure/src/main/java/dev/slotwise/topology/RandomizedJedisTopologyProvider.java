package dev.slotwise.topology;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Jedis;

import org.springframework.data.redis.ClusterStateFailureException;
import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.convert.Converters;

/**
 * A Jedis topology provider that asks one random node per refresh, caches the answer for a time-to-live, and never
 * runs two refreshes at once.
 * <p>
 * A lookup that finds the cache fresh returns it at the cost of two volatile reads. A lookup that finds it expired
 * or invalidated tries to become the one refresher; if another thread already is, it returns the stale topology
 * (stale-while-revalidate) and only waits, up to the initial timeout, when there is no topology at all yet. The
 * refresher runs on the caller's thread, so the provider owns no thread to shut down.
 */
final class RandomizedJedisTopologyProvider implements RefreshableTopologyProvider {

	private final Supplier<Map<String, ConnectionPool>> nodes;

	private final long cacheTtlNanos;

	private final boolean preferReplicas;

	private final Duration initialTimeout;

	private final TopologyObserver observer;

	private volatile @Nullable Snapshot cached;

	/** Bumped by {@link #invalidate()}; a snapshot fetched under an older generation is stale. */
	private final AtomicLong generation = new AtomicLong();

	private final AtomicReference<@Nullable CompletableFuture<Snapshot>> inFlight = new AtomicReference<>();

	RandomizedJedisTopologyProvider(Supplier<Map<String, ConnectionPool>> nodes, TopologySettings settings) {
		this.nodes = nodes;
		this.cacheTtlNanos = settings.cacheTtl().toNanos();
		this.preferReplicas = settings.preferReplicas();
		this.initialTimeout = settings.initialTimeout();
		this.observer = settings.observer();
	}

	@Override
	public ClusterTopology getTopology() {
		Snapshot snapshot = this.cached;
		if (isFresh(snapshot)) {
			this.observer.lookup(true);
			return snapshot.topology();
		}
		this.observer.lookup(false);
		CompletableFuture<Snapshot> mine = new CompletableFuture<>();
		CompletableFuture<Snapshot> running = this.inFlight.compareAndExchange(null, mine);
		if (running == null) {
			return refreshAs(mine).topology();
		}
		if (snapshot != null) {
			return snapshot.topology();
		}
		return await(running).topology();
	}

	@Override
	public void invalidate() {
		this.generation.incrementAndGet();
	}

	private boolean isFresh(@Nullable Snapshot snapshot) {
		return snapshot != null && snapshot.generation() == this.generation.get()
				&& System.nanoTime() - snapshot.fetchedAt() < this.cacheTtlNanos;
	}

	private Snapshot refreshAs(CompletableFuture<Snapshot> mine) {
		try {
			// Another refresher may have finished between our cache check and winning the slot: its answer is as good.
			Snapshot current = this.cached;
			Snapshot result = isFresh(current) ? current : fetch();
			mine.complete(result);
			return result;
		}
		catch (RuntimeException ex) {
			mine.completeExceptionally(ex);
			throw ex;
		}
		finally {
			this.inFlight.compareAndSet(mine, null);
		}
	}

	private Snapshot await(CompletableFuture<Snapshot> running) {
		try {
			return running.get(this.initialTimeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw new ClusterStateFailureException("Could not retrieve the cluster topology", ex.getCause());
		}
		catch (TimeoutException ex) {
			throw new ClusterStateFailureException(
					"No cluster topology within %s (slotwise.topology.initial-timeout)".formatted(this.initialTimeout),
					ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new ClusterStateFailureException("Interrupted while waiting for the cluster topology", ex);
		}
	}

	private Snapshot fetch() {
		long generationAtStart = this.generation.get();
		Map<String, ConnectionPool> pools = this.nodes.get();
		Map<String, RedisClusterNode> known = knownNodes(this.cached);
		List<String> order = RefreshOrder.shuffled(pools.keySet(), (address) -> tier(known.get(address)));
		Map<String, Exception> errors = new LinkedHashMap<>();
		for (String address : order) {
			long start = System.nanoTime();
			try (Connection connection = pools.get(address).getResource()) {
				Set<RedisClusterNode> topology = Converters
					.toSetOfRedisClusterNodes(new Jedis(connection).clusterNodes());
				long now = System.nanoTime();
				this.observer.refreshed(address, true, Duration.ofNanos(now - start));
				Snapshot snapshot = new Snapshot(new ClusterTopology(topology), now, generationAtStart);
				this.cached = snapshot;
				return snapshot;
			}
			catch (RuntimeException ex) {
				this.observer.refreshed(address, false, Duration.ofNanos(System.nanoTime() - start));
				errors.put(address, ex);
			}
		}
		for (String address : known.keySet()) {
			// Nodes the last topology lists but Jedis has no pool for (not in its CLUSTER SLOTS view yet) cannot be
			// asked through the client; name them so the failure accounts for every node known.
			errors.putIfAbsent(address, new IllegalStateException("not asked: the Jedis client has no connection "
					+ "pool for this node (not in its CLUSTER SLOTS view)"));
		}
		StringBuilder message = new StringBuilder("Could not retrieve the cluster topology; CLUSTER NODES failed on ")
			.append(errors.isEmpty() ? "no node: none is known" : "every node:");
		errors.forEach((address, ex) -> message.append("\n\t- ").append(address).append(": ").append(ex));
		ClusterStateFailureException failure = new ClusterStateFailureException(message.toString());
		errors.values().forEach(failure::addSuppressed);
		throw failure;
	}

	private int tier(@Nullable RedisClusterNode node) {
		if (node == null) {
			return this.preferReplicas ? RefreshOrder.FALLBACK : RefreshOrder.PREFERRED;
		}
		if (node.isMarkedAsFail()) {
			return RefreshOrder.LAST_RESORT;
		}
		return (!this.preferReplicas || node.isReplica()) ? RefreshOrder.PREFERRED : RefreshOrder.FALLBACK;
	}

	private static Map<String, RedisClusterNode> knownNodes(@Nullable Snapshot snapshot) {
		if (snapshot == null) {
			return Map.of();
		}
		Map<String, RedisClusterNode> known = new HashMap<>();
		for (RedisClusterNode node : snapshot.topology().getNodes()) {
			if (node.hasValidHost()) {
				known.put(node.asString(), node);
			}
		}
		return known;
	}

	private record Snapshot(ClusterTopology topology, long fetchedAt, long generation) {
	}

}
