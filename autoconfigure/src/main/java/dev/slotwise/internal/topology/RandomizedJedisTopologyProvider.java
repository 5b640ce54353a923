package dev.slotwise.internal.topology;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.slotwise.internal.compat.JedisInternals;
import dev.slotwise.internal.compat.JedisNodePools;
import dev.slotwise.internal.compat.SpringDataInternals;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.data.redis.ClusterStateFailureException;
import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.convert.Converters;
import org.springframework.data.redis.connection.jedis.JedisClusterConnection.JedisClusterTopologyProvider;

/**
 * A Jedis topology provider that asks one random node per refresh, caches the answer for
 * a time-to-live, never runs two refreshes at once, and never starts refreshes more often
 * than a minimum interval.
 * <p>
 * A lookup that finds the cache fresh returns it at the cost of two volatile reads. A
 * lookup that finds it expired or invalidated returns the stale topology at once
 * (stale-while-revalidate) unless it may start a refresh: only one thread at a time, and
 * only when the {@link RefreshPacer} allows it. That thread refreshes on its own stack,
 * so the provider owns no thread to shut down. Only when there is no topology at all yet
 * does a lookup wait, up to the initial timeout, for the refresh another thread runs.
 * <p>
 * A refresh that fails keeps the last good topology in use (stale-while-error) and backs
 * off; callers then reach the nodes and see their errors, instead of a topology exception
 * on every call. Invalidation only marks the topology stale: it never makes a caller
 * refresh sooner than the pacer allows.
 * <p>
 * When no node Jedis holds a pool for answers, the refresh makes Jedis re-read its slot
 * table from the configured seed nodes (names resolved again), then asks the nodes that
 * names: a cluster whose every address changed behind stable names is found again without
 * a restart. This happens within the same paced refresh, never more often.
 * <p>
 * A refresh that finds the masters serving slots changed hands the change to a listener
 * (pre-warm, release) on a thread of its own, see
 * {@link #onServingMastersChanged(Consumer)}.
 * <p>
 * A master that only the answering node suspects ({@code fail?}, or a broken link from
 * that node) keeps its slots: one node's opinion must not route a healthy master's slots
 * nowhere. Only {@code fail}, which the cluster sets when a majority of masters agree,
 * takes a master out of {@link ClusterTopology#getActiveMasterNodes()}.
 * <p>
 * It extends Spring Data Redis's {@link JedisClusterTopologyProvider} so that code
 * casting {@code getTopologyProvider()} to it keeps working, and returns Spring Data
 * Redis's topology type ({@link SpringDataInternals#jedisTopology}); none of the
 * superclass's state or caching is used.
 */
final class RandomizedJedisTopologyProvider extends JedisClusterTopologyProvider
		implements RefreshableTopologyProvider, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RandomizedJedisTopologyProvider.class);

	private final Supplier<Map<String, ConnectionPool>> nodes;

	private final long cacheTtlNanos;

	private final boolean preferReplicas;

	private final Duration initialTimeout;

	private final TopologyObserver observer;

	private final RefreshPacer pacer;

	/**
	 * Renews Jedis's slot table from the seed nodes; {@code false} when Jedis's slot
	 * cache cannot be reached.
	 */
	private final BooleanSupplier renewal;

	private final boolean renewalAvailable;

	private final NewMasters newMasters;

	/**
	 * Named apart from the superclass's unused {@code cached}, which Spring Data Redis's
	 * own tests reset by reflection and which therefore must not be this one.
	 */
	private volatile @Nullable Snapshot lastSnapshot;

	/**
	 * Bumped by {@link #invalidate()}; a snapshot fetched under an older generation is
	 * stale.
	 */
	private final AtomicLong generation = new AtomicLong();

	private final AtomicReference<@Nullable CompletableFuture<Snapshot>> inFlight = new AtomicReference<>();

	RandomizedJedisTopologyProvider(RedisClusterClient client, TopologySettings settings) {
		super(client, settings.cacheTtl());
		this.nodes = client::getClusterNodes;
		this.cacheTtlNanos = settings.cacheTtl().toNanos();
		this.preferReplicas = settings.preferReplicas();
		this.initialTimeout = settings.initialTimeout();
		this.observer = settings.observer();
		// Back off after failures up to the cache time-to-live: a failing cluster is then
		// asked no more often than a healthy one.
		this.pacer = new RefreshPacer(settings.minRefreshInterval(), settings.cacheTtl());
		this.renewal = () -> JedisInternals.renewSlotCache(client);
		this.renewalAvailable = JedisInternals.clusterProvider(client) != null;
		this.newMasters = new NewMasters(this.nodes, this.renewal::getAsBoolean);
	}

	@SuppressWarnings("deprecation")
	RandomizedJedisTopologyProvider(JedisCluster client, TopologySettings settings) {
		super(client, settings.cacheTtl());
		this.nodes = client::getClusterNodes;
		this.cacheTtlNanos = settings.cacheTtl().toNanos();
		this.preferReplicas = settings.preferReplicas();
		this.initialTimeout = settings.initialTimeout();
		this.observer = settings.observer();
		this.pacer = new RefreshPacer(settings.minRefreshInterval(), settings.cacheTtl());
		this.renewal = () -> JedisInternals.renewSlotCache(client);
		this.renewalAvailable = JedisInternals.clusterProvider(client) != null;
		this.newMasters = new NewMasters(this.nodes, this.renewal::getAsBoolean);
	}

	/**
	 * Sets what runs, on a thread of its own, when a refresh finds the masters serving
	 * slots changed.
	 * @param listener receives the change; replaces any listener set before
	 */
	void onServingMastersChanged(Consumer<ServingMastersChange> listener) {
		this.newMasters.listen(listener);
	}

	/**
	 * Ends the thread that notifies of new masters; called when the connection factory
	 * that created the provider stops.
	 */
	@Override
	public void close() {
		this.newMasters.close();
	}

	@Override
	public ClusterTopology getTopology() {
		Snapshot snapshot = this.lastSnapshot;
		if (isFresh(snapshot)) {
			this.observer.lookup(true);
			return snapshot.topology();
		}
		this.observer.lookup(false);
		if (snapshot != null && !this.pacer.mayStart(System.nanoTime())) {
			return snapshot.topology();
		}
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
	public @Nullable ClusterTopology lastFetchedTopology() {
		Snapshot snapshot = this.lastSnapshot;
		return (snapshot != null) ? snapshot.topology() : null;
	}

	@Override
	public void invalidate() {
		this.generation.incrementAndGet();
	}

	private boolean isFresh(@Nullable Snapshot snapshot) {
		return snapshot != null && snapshot.generation() == this.generation.get()
				&& System.nanoTime() - snapshot.expiresAt() < 0;
	}

	private Snapshot refreshAs(CompletableFuture<Snapshot> mine) {
		try {
			Snapshot result = refreshIfAllowed();
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

	private Snapshot refreshIfAllowed() {
		// Another refresher may have finished between our cache check and winning the
		// slot: its answer is as good.
		Snapshot current = this.lastSnapshot;
		if (isFresh(current)) {
			return current;
		}
		if (!this.pacer.tryStart(System.nanoTime())) {
			if (current != null) {
				return current;
			}
			throw noTopologyYet();
		}
		try {
			Snapshot fetched = fetch();
			this.pacer.succeeded();
			return fetched;
		}
		catch (ClusterStateFailureException ex) {
			if (this.pacer.failed(ex)) {
				logger.warn("Could not refresh the Redis Cluster topology"
						+ ((current != null) ? "; the last one fetched stays in use until a refresh succeeds" : "")
						+ ": " + ex.getMessage());
			}
			if (current != null) {
				return current;
			}
			throw ex;
		}
	}

	private ClusterStateFailureException noTopologyYet() {
		Throwable last = this.pacer.lastFailure();
		String message = "No cluster topology yet; " + this.pacer.describe(System.nanoTime());
		if (last != null) {
			message += ": " + last.getMessage();
		}
		return new ClusterStateFailureException(message, last);
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
		if (pools.isEmpty()) {
			throw closedClient();
		}
		Map<String, RedisClusterNode> known = knownNodes(this.lastSnapshot);
		List<String> order = RefreshOrder.shuffled(pools.keySet(), (address) -> tier(known.get(address)));
		Map<String, Exception> errors = new LinkedHashMap<>();
		Snapshot fetched = ask(pools, order, errors, generationAtStart);
		if (fetched == null && this.renewal.getAsBoolean()) {
			// No node Jedis holds a pool for answered: every address may have changed
			// (nodes rescheduled behind stable names). Jedis's own renewal asks the
			// configured seed nodes, resolving their names again, and creates pools for
			// the nodes they name; ask those we have not asked yet.
			Map<String, ConnectionPool> renewed = this.nodes.get();
			List<String> fresh = RefreshOrder.shuffled(
					renewed.keySet().stream().filter((address) -> !errors.containsKey(address)).toList(),
					(address) -> RefreshOrder.PREFERRED);
			fetched = ask(renewed, fresh, errors, generationAtStart);
			if (fetched != null) {
				logger.info("No known Redis Cluster node answered; the topology was read again through the "
						+ "configured seed nodes");
			}
			pools = renewed;
		}
		if (fetched != null) {
			return fetched;
		}
		for (Map.Entry<String, RedisClusterNode> entry : known.entrySet()) {
			// Nodes the last topology lists but Jedis has no pool for (not in its CLUSTER
			// SLOTS view yet) cannot be asked through the client; name them so the
			// failure accounts for every node known.
			RedisClusterNode node = entry.getValue();
			boolean asked = JedisNodePools.find(pools, node) != null;
			if (!asked) {
				errors.putIfAbsent(entry.getKey(), new IllegalStateException("not asked: the Jedis client has no "
						+ "connection pool for this node (not in its CLUSTER SLOTS view)"));
			}
		}
		StringBuilder message = new StringBuilder("Could not retrieve the cluster topology; CLUSTER NODES failed on ")
			.append(errors.isEmpty() ? "no node: none is known" : "every node:");
		errors.forEach((address, ex) -> message.append("\n\t- ").append(address).append(": ").append(ex));
		if (this.renewalAvailable) {
			message.append("\n\t(the configured seed nodes were asked too)");
		}
		ClusterStateFailureException failure = new ClusterStateFailureException(message.toString());
		errors.values().forEach(failure::addSuppressed);
		throw failure;
	}

	/**
	 * An open Jedis client always holds the pools of the nodes it found at start-up, so
	 * none means it was closed (the application context is closing while a call is in
	 * flight). Renewing its slot cache from the seed nodes now would re-create every
	 * node's pool on the closed client: nothing would close them again, their evictor
	 * would keep {@code min-idle} connections open on every node, and calls would succeed
	 * after close.
	 */
	private static ClusterStateFailureException closedClient() {
		return new ClusterStateFailureException(
				"The Jedis cluster client is closed: its topology is not refreshed (the connection factory stopped)");
	}

	/**
	 * Asks the given nodes in order until one answers; records each failure.
	 * @return the new snapshot, or {@code null} when none answered
	 */
	private @Nullable Snapshot ask(Map<String, ConnectionPool> pools, List<String> order, Map<String, Exception> errors,
			long generationAtStart) {
		for (String address : order) {
			long start = System.nanoTime();
			try (Connection connection = pools.get(address).getResource()) {
				Set<RedisClusterNode> topology = AgreedFailures
					.apply(Converters.toSetOfRedisClusterNodes(new Jedis(connection).clusterNodes()));
				long now = System.nanoTime();
				this.observer.refreshed(address, true, Duration.ofNanos(now - start));
				Snapshot previous = this.lastSnapshot;
				long ttl = jitteredTtl();
				Snapshot snapshot = new Snapshot(SpringDataInternals.jedisTopology(topology, System.currentTimeMillis(),
						TimeUnit.NANOSECONDS.toMillis(ttl)), now + ttl, generationAtStart);
				this.lastSnapshot = snapshot;
				this.newMasters.compare((previous != null) ? previous.topology() : null, snapshot.topology());
				return snapshot;
			}
			catch (RuntimeException ex) {
				this.observer.refreshed(address, false, Duration.ofNanos(System.nanoTime() - start));
				errors.put(address, ex);
			}
		}
		return null;
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
				if (node.getName() != null && !node.getName().isEmpty()) {
					// Jedis keys its pools by the announced hostname when the cluster
					// prefers hostnames.
					known.putIfAbsent(node.getName() + ":" + node.getPort(), node);
				}
			}
		}
		return known;
	}

	/**
	 * The time-to-live of one fetched topology: the configured one plus up to a quarter
	 * more at random. Applications started together (a deployment) would otherwise
	 * refresh in lockstep, every instance in the same instant, for as long as they run;
	 * the jitter spreads them out and lowers a fleet's steady refresh rate by about a
	 * tenth.
	 */
	private long jitteredTtl() {
		return this.cacheTtlNanos + ThreadLocalRandom.current().nextLong(this.cacheTtlNanos / 4 + 1);
	}

	private record Snapshot(ClusterTopology topology, long expiresAt, long generation) {
	}

}
