package dev.slotwise.internal.keyspace;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.slotwise.internal.routing.NodeAddress;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.KeyScanOptions;
import org.springframework.data.redis.core.ScanOptions;

/**
 * The whole keyspace of one cluster client: the cluster-wide {@code SCAN} ({@link ClusterScan}) as a {@link Cursor}
 * and as a {@link Flux}, and {@code KEYS} sent to every master in parallel.
 * <p>
 * Spring Data Redis's cache writer clears a cache with {@code KEYS} by default ({@code BatchStrategies.keys()}),
 * blocking every master for a walk of its whole keyspace. A {@code keys(pattern)} call made by that strategy (seen on
 * the calling thread's stack: the imperative strategy, or the reactive cache writer assembling its clear) runs as the
 * cluster-wide {@code SCAN} instead, which Slotwise logs once.
 */
public final class ClusterKeyspace implements ReactiveKeyspaceCommands {

	private static final Log logger = LogFactory.getLog(ClusterKeyspace.class);

	/** Spring Data Redis's classes whose {@code keys(pattern)} call is a cache clear. */
	private static final Set<String> CACHE_CLEARS = Set.of("org.springframework.data.redis.cache.BatchStrategies$Keys",
			"org.springframework.data.redis.cache.DefaultRedisCacheWriter$AsynchronousCacheWriterDelegate");

	/** Spring Data Redis's class whose {@code scan(options)} call is a cache clear (for the meters only). */
	private static final Set<String> CACHE_SCANS = Set.of("org.springframework.data.redis.cache.BatchStrategies$Scan",
			"org.springframework.data.redis.cache.DefaultRedisCacheWriter$AsynchronousCacheWriterDelegate");

	private static final String SCAN_STRATEGY = "org.springframework.data.redis.cache.BatchStrategies$Scan";

	private static final AtomicBoolean cacheClearLogged = new AtomicBoolean();

	private static final long CACHE_SCAN_COUNT = 1000;

	private final ScanTransport transport;

	private final ScanSettings settings;

	private final ScanObserver observer;

	ClusterKeyspace(ScanTransport transport, ScanSettings settings, ScanObserver observer) {
		this.transport = transport;
		this.settings = settings;
		this.observer = observer;
	}

	/**
	 * Starts a cluster-wide scan.
	 * @param options match, count and type ({@link KeyScanOptions}), passed to every node
	 * @return the keys, each at least once; close it to stop early
	 */
	@Override
	public Cursor<byte[]> scan(ScanOptions options) {
		// Spring Data Redis's SCAN strategy of cache clearing deletes every key the scan returns, on the same
		// connection: the scan removes each where its walk found it instead, and the strategy's DEL of them is
		// answered by the connection without sending them again (docs/keyspace.md).
		boolean strategy = calledByStrategy(SCAN_STRATEGY);
		ClusterScan scan = strategy ? newScan(options, true, true) : newScan(options, calledBy(CACHE_SCANS));
		return new ClusterScanCursor(scan.start());
	}

	/**
	 * Returns a cluster-wide scan as a {@link Flux} that honours back-pressure.
	 * @param options match, count and type, passed to every node
	 * @return the keys, each at least once
	 */
	@Override
	public Flux<ByteBuffer> scanReactive(ScanOptions options) {
		boolean cacheClear = calledBy(CACHE_SCANS);
		return new ReactiveClusterScan(() -> newScan(options, cacheClear)).scan();
	}

	/**
	 * Returns the keys matching a pattern: {@code KEYS} on every master in parallel, or, for Spring Data Redis's cache
	 * clearing, the cluster-wide {@code SCAN}.
	 * @param pattern the pattern
	 * @return the keys
	 */
	@Override
	public Set<byte[]> keys(byte[] pattern) {
		if (pattern == null) {
			throw new IllegalArgumentException("'pattern' must not be null");
		}
		if (calledByCacheClear()) {
			// Not removed where found, unlike the SCAN strategy's pages: the strategy deletes all keys in one call, which
			// the multi-key engine sends as one DEL per slot of all of them (about 6 keys per command for 100,000 keys),
			// where a page's keys spread over its master's slots (about one per command). Measured: 645 ms against
			// 386 ms for 100,000 entries over Lettuce (CacheClearIntegrationTests).
			return scanAll(pattern);
		}
		// Plain KEYS, on every master at once: the caller asked for it (SCAN is the better choice, docs/keyspace.md).
		List<byte[]> keys = await(keysOnMasters(pattern));
		return new LinkedHashSet<>(keys);
	}

	/**
	 * Like {@link #keys(byte[])}, without blocking.
	 * @param pattern the pattern
	 * @return the keys
	 */
	@Override
	public Mono<List<ByteBuffer>> keysReactive(ByteBuffer pattern) {
		byte[] bytes = new byte[pattern.remaining()];
		pattern.duplicate().get(bytes);
		if (calledByCacheClear()) {
			return new ReactiveClusterScan(() -> newScan(cacheScanOptions(bytes), true)).scan().distinct().collectList();
		}
		return Mono.fromFuture(() -> keysOnMasters(bytes))
			.map((keys) -> keys.stream().map(ByteBuffer::wrap).toList());
	}

	private Set<byte[]> scanAll(byte[] pattern) {
		Set<ByteBuffer> seen = new HashSet<>();
		Set<byte[]> keys = new LinkedHashSet<>();
		try (Cursor<byte[]> cursor = new ClusterScanCursor(newScan(cacheScanOptions(pattern), true).start())) {
			while (cursor.hasNext()) {
				byte[] key = cursor.next();
				if (seen.add(ByteBuffer.wrap(key))) {
					keys.add(key);
				}
			}
		}
		return keys;
	}

	private static ScanOptions cacheScanOptions(byte[] pattern) {
		return ScanOptions.scanOptions().match(pattern).count(CACHE_SCAN_COUNT).build();
	}

	/**
	 * Whether Spring Data Redis's SCAN strategy of cache clearing ({@code BatchStrategies.scan(n)}) calls: it deletes
	 * every key the scan returns, on the same connection, so the scan removes each where its walk found it instead
	 * (the strategy's {@code DEL} of them is then answered by the connection without sending them again).
	 */
	private static boolean calledByStrategy(String strategy) {
		return StackWalker.getInstance()
			.walk((frames) -> frames.limit(32).anyMatch((frame) -> strategy.equals(frame.getClassName())
					&& "cleanCache".equals(frame.getMethodName())));
	}

	private static boolean calledBy(Set<String> classes) {
		return StackWalker.getInstance()
			.walk((frames) -> frames.limit(32).anyMatch((frame) -> classes.contains(frame.getClassName())));
	}

	private static boolean calledByCacheClear() {
		boolean cache = calledBy(CACHE_CLEARS);
		if (cache && cacheClearLogged.compareAndSet(false, true)) {
			logger.info("A Redis cache is cleared with Spring Data Redis's KEYS strategy (BatchStrategies.keys()): on "
					+ "a cluster Slotwise runs it as a cluster-wide SCAN instead, which never blocks a node for a walk "
					+ "of its whole keyspace. Logged once.");
		}
		return cache;
	}

	private CompletableFuture<List<byte[]>> keysOnMasters(byte[] pattern) {
		return layout().thenCompose((layout) -> {
			List<CompletableFuture<List<byte[]>>> perNode = new ArrayList<>();
			for (ClusterNodes.Node master : layout.servingMasters()) {
				ClusterNodes.Node node = master;
				if (this.transport.readFromReplicas() && !layout.replicasOf(master).isEmpty()) {
					node = layout.replicasOf(master).get(0);
				}
				perNode.add(this.transport.keys(node, pattern));
			}
			return CompletableFuture.allOf(perNode.toArray(new CompletableFuture<?>[0])).thenApply((ignored) -> {
				List<byte[]> keys = new ArrayList<>();
				perNode.forEach((node) -> keys.addAll(node.join()));
				return keys;
			});
		});
	}

	private CompletableFuture<ClusterNodes> layout() {
		List<NodeAddress> seeds = this.transport.seeds();
		CompletableFuture<ClusterNodes> layout = CompletableFuture
			.failedFuture(new DataAccessResourceFailureException("No node of " + seeds + " answered CLUSTER NODES"));
		for (NodeAddress seed : seeds) {
			layout = layout.exceptionallyCompose((ignored) -> this.transport.clusterNodes(seed)
				.thenApply(ClusterNodes::parse));
		}
		return layout;
	}

	private <T> T await(CompletableFuture<T> future) {
		try {
			return future.get(this.settings.timeout().toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			future.cancel(false);
			throw new QueryTimeoutException("KEYS on every master took longer than " + this.settings.timeout(), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new DataAccessResourceFailureException("Interrupted while waiting for KEYS", ex);
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof DataAccessException translated) {
				throw translated;
			}
			throw new DataAccessResourceFailureException("KEYS on every master failed: " + cause.getMessage(), cause);
		}
	}

	ClusterScan newScan(ScanOptions options, boolean cacheClear) {
		return newScan(options, cacheClear, false);
	}

	ClusterScan newScan(ScanOptions options, boolean cacheClear, boolean removeAtSource) {
		if (options == null) {
			throw new IllegalArgumentException("'options' must not be null");
		}
		String type = (options instanceof KeyScanOptions keyOptions) ? keyOptions.getType() : null;
		return new ClusterScan(this.transport, this.settings, options.getBytePattern(), options.getCount(), type,
				this.observer, cacheClear, removeAtSource);
	}

}
