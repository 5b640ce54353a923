package dev.slotwise.internal.topology;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import dev.slotwise.internal.compat.LettuceInternals;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterPushHandler;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.StatefulRedisClusterConnectionImpl;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import io.lettuce.core.json.JsonParser;
import io.lettuce.core.resource.ClientResources;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

/**
 * A Lettuce {@link RedisClusterClient} whose topology refreshes ask a few random nodes
 * instead of every node.
 * <p>
 * Lettuce's own refresh opens a connection to every known node and sends
 * {@code CLUSTER NODES} and {@code INFO} to each; with dynamic refresh sources it also
 * discovers and connects to any node the answers mention. Here a refresh asks
 * {@code refreshSources} nodes drawn uniformly at random (replicas first when preferred
 * and known), with discovery off so that it contacts no other node. When more than one
 * node answers, Lettuce's own consensus ({@link #determinePartitions}) still picks the
 * view. When every asked node fails, the next random nodes are asked, until every
 * candidate was tried.
 * <p>
 * Candidates are the nodes of the current topology when Lettuce's dynamic refresh sources
 * are on (its default), and the configured seed nodes otherwise or before the first
 * topology exists. When no known node answers, the seed nodes are asked as the last
 * resort (Lettuce does the same, but only with dynamic refresh sources, which sampling
 * turns off); their names are resolved again on each connect, so seeds behind a stable
 * DNS name find nodes whose addresses all changed.
 * <p>
 * Every refresh after the first goes through {@link #refreshPartitionsAsync()}, whoever
 * asks for it: Lettuce's adaptive and periodic triggers and the multi-key engine alike.
 * There it runs one at a time and starts no sooner than the {@link RefreshPacer} allows;
 * a refresh asked for too soon is skipped and the current partitions stay, as they do
 * when a refresh fails.
 * <p>
 * One exception to that pacing is the failover watch ({@link #watchFailover()}), so that
 * a promotion is seen soon after it happens instead of after a back-off meant for a quiet
 * cluster and whatever call triggers come next. It starts when a refresh shows a master
 * that serves slots as suspected or failed, or when Lettuce fails to reconnect to such a
 * master (published on the client resources' event bus). While it runs, it asks one node
 * itself and the paced refreshes are skipped: a replica of the failing master (a replica
 * knows of its own promotion first), or, while only reconnects see the failure, one
 * random node, at the pace {@link FailoverWatch} sets. Refresh requests alone (redirects,
 * failed calls) never start one: they stay paced.
 */
final class SamplingRedisClusterClient extends RedisClusterClient {

	private static final Log logger = LogFactory.getLog(SamplingRedisClusterClient.class);

	private final int refreshSources;

	private final boolean preferReplicas;

	private final TopologyObserver observer;

	private final RefreshPacer pacer;

	private final long minIntervalNanos;

	private final long maxQuietNanos;

	/**
	 * Refreshes in a row that found the topology as it was; guarded by the single flight
	 * in {@code refreshing}.
	 */
	private int unchanged;

	/**
	 * {@link System#nanoTime()} before which a requested refresh is skipped: the last
	 * ones found nothing new.
	 */
	private volatile long quietUntil;

	private volatile boolean quiet;

	/**
	 * {@link System#nanoTime()} when a refresh last applied a change; valid once
	 * {@link #changed} is set.
	 */
	private volatile long changedAt;

	private volatile boolean changed;

	/**
	 * Whether a view of the last refresh showed a master that serves slots as suspected
	 * or failed.
	 */
	private volatile boolean suspected;

	/**
	 * The ids of the masters a view of the last refresh showed as suspected or failed.
	 */
	private volatile Set<String> failing = Set.of();

	private final AtomicReference<@Nullable CompletableFuture<Void>> refreshing = new AtomicReference<>();

	/**
	 * The subscription to reconnect failures on the client's event bus, disposed at
	 * shutdown.
	 */
	private final @Nullable Disposable reconnectFailures;

	/** When the failover watch runs. */
	private final FailoverWatch watch;

	private volatile boolean shutDown;

	/** The sources of a failover-watch refresh starting on this thread. */
	private final ThreadLocal<@Nullable List<RedisURI>> watchSources = new ThreadLocal<>();

	/**
	 * The sources of the attempt running on this thread, read back by
	 * {@link #getTopologyRefreshSource()}.
	 */
	private final ThreadLocal<@Nullable List<RedisURI>> plannedSources = new ThreadLocal<>();

	private final Set<RefreshAttempt> attempts = ConcurrentHashMap.newKeySet();

	/**
	 * The partitions once loaded; Lettuce reloads this instance in place. Kept to read it
	 * without loading it.
	 */
	private volatile @Nullable Partitions known;

	SamplingRedisClusterClient(@Nullable ClientResources resources, Iterable<RedisURI> initialUris, int refreshSources,
			TopologySettings settings) {
		super(resources, initialUris);
		this.refreshSources = refreshSources;
		this.preferReplicas = settings.preferReplicas();
		this.observer = settings.observer();
		this.pacer = new RefreshPacer(settings.minRefreshInterval(), settings.cacheTtl());
		this.minIntervalNanos = settings.minRefreshInterval().toNanos();
		this.maxQuietNanos = Math.max(this.minIntervalNanos, settings.cacheTtl().toNanos());
		this.watch = new FailoverWatch(this.maxQuietNanos);
		this.reconnectFailures = getResources().eventBus()
			.get()
			.filter(ReconnectFailedEvent.class::isInstance)
			.subscribe((event) -> reconnectFailed(((ReconnectFailedEvent) event).remoteAddress()));
	}

	/**
	 * A connection to a node could not be re-established: when the node is a master that
	 * serves slots, callers of its slots fail until the cluster promotes a replica, which
	 * a failover watch then sees.
	 */
	private void reconnectFailed(SocketAddress remote) {
		Partitions partitions = this.known;
		if (this.shutDown || partitions == null || this.minIntervalNanos == 0
				|| !(remote instanceof InetSocketAddress address)) {
			return;
		}
		if (!PartitionViews.isServingMaster(partitions, address)) {
			return;
		}
		long now = System.nanoTime();
		this.watch.demand(now);
		if (this.watch.tryStart(now)) {
			scheduleWatch(!watchSources(partitions).isEmpty());
		}
	}

	/**
	 * Lettuce's cluster connection with one difference: a command whose caller cancelled
	 * it (Spring Data's timeout) is never written later, see
	 * {@link LettuceInternals#clusterConnection}.
	 */
	@Override
	protected <V, K> StatefulRedisClusterConnectionImpl<K, V> newStatefulRedisClusterConnection(
			RedisChannelWriter channelWriter, ClusterPushHandler pushHandler, RedisCodec<K, V> codec, Duration timeout,
			Supplier<JsonParser> parser) {
		return LettuceInternals.clusterConnection(channelWriter, pushHandler, codec, timeout, parser);
	}

	@Override
	protected <V, K> StatefulRedisClusterConnectionImpl<K, V> newStatefulRedisClusterConnection(
			RedisChannelWriter channelWriter, ClusterPushHandler pushHandler, RedisCodec<K, V> codec,
			Duration timeout) {
		return LettuceInternals.clusterConnection(channelWriter, pushHandler, codec, timeout,
				ClientOptions.DEFAULT_JSON_PARSER);
	}

	@Override
	public CompletionStage<Void> refreshPartitionsAsync() {
		if (this.known == null) {
			// The first load (no partitions yet) is Lettuce's connect path; nothing to
			// keep, nothing to pace.
			return super.refreshPartitionsAsync();
		}
		CompletableFuture<Void> mine = new CompletableFuture<>();
		CompletableFuture<Void> running = this.refreshing.compareAndExchange(null, mine);
		if (running != null) {
			return running;
		}
		long now = System.nanoTime();
		// While a failover watch runs, it asks for the topology itself, more cheaply (one
		// node) and more often.
		if (this.watch.active() || (this.quiet && now - this.quietUntil < 0) || !this.pacer.tryStart(now)) {
			this.refreshing.set(null);
			mine.complete(null);
			return mine;
		}
		return refresh(mine, null);
	}

	/**
	 * Runs one refresh, this client's single flight already claimed with {@code mine}.
	 * @param sources the nodes to ask (a failover watch), or {@code null} for a random
	 * sample of the candidates
	 */
	private CompletableFuture<Void> refresh(CompletableFuture<Void> mine, @Nullable List<RedisURI> sources) {
		if (logger.isDebugEnabled()) {
			logger.debug("Topology refresh starting ("
					+ ((sources != null) ? "failover watch asking " + sources : this.unchanged + " unchanged before it")
					+ ")");
		}
		String before = PartitionViews.fingerprint(this.known);
		CompletionStage<Void> refresh;
		this.watchSources.set(sources);
		try {
			refresh = super.refreshPartitionsAsync();
		}
		catch (RuntimeException ex) {
			refresh = CompletableFuture.failedFuture(ex);
		}
		finally {
			this.watchSources.remove();
		}
		refresh.whenComplete((ignored, failure) -> {
			boolean same = true;
			if (failure == null) {
				this.pacer.succeeded();
				same = before.equals(PartitionViews.fingerprint(this.known));
				settle(same, PartitionViews.settled(this.known), this.suspected);
				if (logger.isDebugEnabled()) {
					logger.debug("Topology refresh found " + (same
							? "the same topology; quiet for "
									+ Duration.ofNanos(this.quietUntil - System.nanoTime()).toMillis() + " ms"
							: "a change:\n" + PartitionViews.fingerprint(this.known)));
				}
			}
			else if (sources != null) {
				logger.debug("Failover watch could not ask " + sources + ": " + failure.getMessage());
			}
			else if (this.pacer.failed(failure)) {
				logger
					.warn("Could not refresh the Redis Cluster topology; the current one stays in use until a refresh "
							+ "succeeds: " + failure.getMessage());
			}
			this.refreshing.set(null);
			if (failure == null) {
				mine.complete(null);
			}
			else {
				mine.completeExceptionally(failure);
			}
			// A watch that asked a node that failed (the dead master itself, say) asks
			// another at its next step.
			continueWatch(sources != null, same);
		});
		return mine;
	}

	/**
	 * After a refresh: starts a failover watch when the topology shows a failover under
	 * way, continues a running one while that lasts or reconnects to the master keep
	 * failing, and otherwise ends it.
	 * @param fromWatch whether the refresh was the watch's own
	 * @param same whether it found the topology as it was
	 */
	private void continueWatch(boolean fromWatch, boolean same) {
		if (this.shutDown || this.minIntervalNanos == 0) {
			this.watch.stop();
			return;
		}
		long now = System.nanoTime();
		if (!same) {
			this.watch.changed();
		}
		boolean underWay = !watchSources(this.known).isEmpty();
		if (fromWatch) {
			if (this.watch.ranOut(now)) {
				return;
			}
			if (underWay || this.watch.demandedRecently(now)) {
				scheduleWatch(underWay);
			}
			else {
				this.watch.stop();
			}
			return;
		}
		if (underWay && this.watch.tryStart(now)) {
			scheduleWatch(underWay);
		}
	}

	private void scheduleWatch(boolean underWay) {
		try {
			getResources().eventExecutorGroup()
				.schedule(this::watchFailover, FailoverWatch.delayMillis(underWay), TimeUnit.MILLISECONDS);
		}
		catch (RuntimeException ex) {
			// The resources are shutting down: no more watching.
			this.watch.stop();
		}
	}

	/**
	 * One step of the failover watch: asks one replica of a master that is suspected or
	 * failed whether it took over (a replica knows of its own promotion first), bypassing
	 * the pacing; a refresh already running stands in for it.
	 */
	void watchFailover() {
		if (this.shutDown) {
			this.watch.stop();
			return;
		}
		long now = System.nanoTime();
		if (this.watch.ranOut(now)) {
			return;
		}
		List<RedisURI> sources = watchSources(this.known);
		if (sources.isEmpty()) {
			if (!this.watch.demandedRecently(now)) {
				this.watch.stop();
				return;
			}
			sources = candidates().uris();
		}
		CompletableFuture<Void> mine = new CompletableFuture<>();
		if (sources.isEmpty() || this.refreshing.compareAndExchange(null, mine) != null) {
			scheduleWatch(false);
			return;
		}
		refresh(mine, sources.subList(0, 1));
	}

	private List<RedisURI> watchSources(@Nullable Partitions partitions) {
		return PartitionViews.failoverSources(partitions, this.suspected, this.failing);
	}

	@Override
	public CompletableFuture<Void> shutdownAsync(long quietPeriod, long timeout, TimeUnit timeUnit) {
		this.shutDown = true;
		if (this.reconnectFailures != null) {
			this.reconnectFailures.dispose();
		}
		return super.shutdownAsync(quietPeriod, timeout, timeUnit);
	}

	/**
	 * Spaces out refreshes that keep finding nothing new. In an outage every failed call,
	 * reconnect attempt and redirect asks for a refresh, in every instance of a fleet,
	 * and the pacer alone lets each instance ask refresh-sources nodes once per minimum
	 * interval for as long as the outage lasts, although the cluster's view changes only
	 * a few times (a node suspected, failed over, back). So after a refresh that found
	 * the topology as it was, the next one waits twice as long as the one before it (from
	 * the minimum interval up to the cache time-to-live).
	 * <p>
	 * A refresh that finds a change resets the wait, and how far depends on what it
	 * found. While a master that the cluster agreed has failed still owns slots, or slots
	 * have no master, a failover is under way and its next step (the promotion) is worth
	 * seeing at once: the next refresh may start after the minimum interval. When every
	 * slot has a master that is not failed, the change has settled: the next refresh
	 * waits as after a first refresh that found nothing new. In a fleet that is where
	 * most of the outage's refreshes went: the calls that were routed before the change
	 * and fail or time out just after it, the periodic refresh, and reconnect attempts to
	 * the node the change already marked failed, each asked again within a second or two
	 * and found nothing new.
	 */
	private void settle(boolean same, boolean settled, boolean suspected) {
		if (!same) {
			this.changedAt = System.nanoTime();
			this.changed = true;
		}
		if (this.minIntervalNanos == 0 || (!same && !settled)) {
			this.unchanged = 0;
			this.quiet = false;
			return;
		}
		this.unchanged = nextStep(this.unchanged, same, suspected);
		long wait = this.minIntervalNanos << Math.min(this.unchanged, 20);
		this.quietUntil = System.nanoTime() + ((wait <= 0 || wait > this.maxQuietNanos) ? this.maxQuietNanos : wait);
		this.quiet = true;
	}

	/**
	 * The back-off step after a refresh that found no change to wait for ({@code same}),
	 * or a change that settled. While an asked node suspects a master that serves slots
	 * ({@code fail?}, or {@code fail} not yet in the view kept, see {@link #suspects}),
	 * the wait stays at its first step instead of doubling: the failover that suspicion
	 * leads to comes within about twice the cluster's node timeout, and recovery waits
	 * for the first refresh that sees it. Without this, a refresh that saw only the
	 * suspicion doubled the wait, and the promotion was seen up to 4 s late (a fleet's
	 * recovery went from 6 s to 10.7 s between two runs). This costs at most one refresh
	 * per two minimum intervals while the suspicion lasts.
	 * @param step the current step (refreshes in a row that found nothing new)
	 * @param same whether the refresh found the topology as it was
	 * @param suspected whether a view showed a master that serves slots as suspected or
	 * failed
	 * @return the next step, at least 1
	 */
	static int nextStep(int step, boolean same, boolean suspected) {
		if (!same || suspected) {
			return 1;
		}
		return Math.min(step + 1, 30);
	}

	/**
	 * Tells whether a topology change has been applied since the given time: a failure or
	 * redirect seen by a call routed before then is explained by that change rather than
	 * news of another one.
	 * @param nanos a {@link System#nanoTime()}
	 * @return whether a refresh that found a change completed after {@code nanos}
	 */
	boolean changedSince(long nanos) {
		return this.changed && this.changedAt - nanos > 0;
	}

	@Override
	protected Iterable<RedisURI> getTopologyRefreshSource() {
		List<RedisURI> planned = this.plannedSources.get();
		if (planned != null) {
			return planned;
		}
		// Called outside an attempt only to label Lettuce's refresh event: a fresh sample
		// is a fair description.
		List<RedisURI> candidates = candidates().uris();
		return candidates.subList(0, Math.min(this.refreshSources, candidates.size()));
	}

	@Override
	protected boolean useDynamicRefreshSources() {
		// Lettuce uses this flag to also connect to every node the asked nodes report
		// (discovery), which is exactly the fan-out sampling avoids; the user's own
		// setting is honoured in candidates().
		return false;
	}

	@Override
	protected CompletableFuture<Partitions> loadPartitionsAsync() {
		List<RedisURI> watched = this.watchSources.get();
		if (watched != null) {
			// A failover watch asks only the replica it chose; when it fails, the paced
			// refreshes take over.
			return loadFrom(watched, 0, null, true);
		}
		RefreshCandidates candidates = candidates();
		return loadFrom(candidates.uris(), 0, null, candidates.seeds());
	}

	@Override
	protected CompletableFuture<Partitions> initializePartitions() {
		return super.initializePartitions().thenApply((partitions) -> {
			this.known = partitions;
			return partitions;
		});
	}

	@Override
	public void setPartitions(Partitions partitions) {
		super.setPartitions(partitions);
		this.known = partitions;
	}

	@Override
	protected Partitions determinePartitions(Partitions current, Map<RedisURI, Partitions> topologyViews) {
		for (RedisURI source : topologyViews.keySet()) {
			String address = address(source);
			for (RefreshAttempt attempt : this.attempts) {
				if (attempt.addresses().contains(address)) {
					attempt.answered().add(address);
				}
			}
		}
		Partitions kept = super.determinePartitions(current, topologyViews);
		// Lettuce keeps one view; a suspicion in any of them says a failover may be
		// coming (settle()).
		this.suspected = kept != null
				&& topologyViews.values().stream().anyMatch((view) -> PartitionViews.suspects(view, kept));
		// The masters any view suspects, for the failover watch: the view kept may not
		// show the suspicion.
		Set<String> failing = ConcurrentHashMap.newKeySet();
		for (Partitions view : topologyViews.values()) {
			for (RedisClusterNode node : view) {
				if (node.is(NodeFlag.UPSTREAM) && (node.is(NodeFlag.FAIL) || node.is(NodeFlag.EVENTUAL_FAIL))) {
					failing.add(node.getNodeId());
				}
			}
		}
		this.failing = failing;
		return kept;
	}

	private CompletableFuture<Partitions> loadFrom(List<RedisURI> order, int from, @Nullable Throwable earlier,
			boolean seeds) {
		int to = Math.min(order.size(), from + this.refreshSources);
		List<RedisURI> sources = List.copyOf(order.subList(from, to));
		RefreshAttempt attempt = new RefreshAttempt(sources.stream().map(SamplingRedisClusterClient::address).toList());
		this.attempts.add(attempt);
		CompletableFuture<Partitions> load;
		this.plannedSources.set(sources);
		try {
			load = super.loadPartitionsAsync();
		}
		finally {
			this.plannedSources.remove();
		}
		CompletableFuture<Partitions> result = new CompletableFuture<>();
		load.whenComplete((partitions, failure) -> {
			this.attempts.remove(attempt);
			Duration duration = Duration.ofNanos(System.nanoTime() - attempt.startNanos());
			for (String address : attempt.addresses()) {
				this.observer.refreshed(address, failure == null && attempt.answered().contains(address), duration);
			}
			if (failure == null) {
				result.complete(partitions);
				return;
			}
			if (earlier != null) {
				failure.addSuppressed(earlier);
			}
			CompletableFuture<Partitions> next;
			if (to < order.size()) {
				next = loadFrom(order, to, failure, seeds);
			}
			else if (!seeds) {
				// No known node answered: the configured seeds are the last resort.
				next = loadFrom(RefreshCandidates.of(null, false, getInitialUris()).uris(), 0, failure, true);
			}
			else {
				result.completeExceptionally(failure);
				return;
			}
			next.whenComplete((partitionsOfNext, nextFailure) -> {
				if (nextFailure != null) {
					result.completeExceptionally(nextFailure);
				}
				else {
					result.complete(partitionsOfNext);
				}
			});
		});
		return result;
	}

	private RefreshCandidates candidates() {
		boolean dynamic = !(getOptions() instanceof ClusterClientOptions options)
				|| options.getTopologyRefreshOptions().useDynamicRefreshSources();
		return RefreshCandidates.of(dynamic ? this.known : null, this.preferReplicas, getInitialUris());
	}

	static String address(RedisURI uri) {
		return uri.getHost() + ":" + uri.getPort();
	}

}
