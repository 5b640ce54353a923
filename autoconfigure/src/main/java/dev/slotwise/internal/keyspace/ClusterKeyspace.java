package dev.slotwise.internal.keyspace;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.slotwise.internal.routing.NodeAddress;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.KeyScanOptions;
import org.springframework.data.redis.core.ScanOptions;

/**
 * The whole keyspace of one cluster client: the cluster-wide {@code SCAN}
 * ({@link ClusterScan}) as a {@link Cursor} and as a {@link Flux}, and {@code KEYS} sent
 * to every master in parallel.
 * <p>
 * A cache clear goes through the same scan: Slotwise's {@link ClusterCacheClear} batch
 * strategy, set on the cache writer by Slotwise's cache auto-configuration, asks the
 * cursor this scan returns to remove every key where its walk found it. Nothing here
 * looks at who calls: {@code keys(pattern)} is {@code KEYS} because the caller asked for
 * it.
 */
public final class ClusterKeyspace implements ReactiveKeyspaceCommands {

	private final ScanTransport transport;

	private final ScanSettings settings;

	private final ScanObserver observer;

	ClusterKeyspace(ScanTransport transport, ScanSettings settings, ScanObserver observer) {
		this.transport = transport;
		this.settings = settings;
		this.observer = observer;
	}

	/**
	 * Returns a cluster-wide scan; its walks start when the cursor is first read, so that
	 * {@link ClusterCacheClear} can still make it a cache clear.
	 * @param options match, count and type ({@link KeyScanOptions}), passed to every node
	 * @return the keys, each at least once; close it to stop early
	 */
	@Override
	public Cursor<byte[]> scan(ScanOptions options) {
		checkOptions(options);
		return new ClusterScanCursor((cacheClear) -> newScan(options, cacheClear));
	}

	/**
	 * Returns a cluster-wide scan as a {@link Flux} that honours back-pressure.
	 * @param options match, count and type, passed to every node
	 * @return the keys, each at least once
	 */
	@Override
	public Flux<ByteBuffer> scanReactive(ScanOptions options) {
		checkOptions(options);
		return new ReactiveClusterScan(() -> newScan(options, false)).scan();
	}

	/**
	 * Returns the keys matching a pattern: {@code KEYS} on every master in parallel.
	 * @param pattern the pattern
	 * @return the keys
	 */
	@Override
	public Set<byte[]> keys(byte[] pattern) {
		if (pattern == null) {
			throw new IllegalArgumentException("'pattern' must not be null");
		}
		// Plain KEYS, on every master at once: the caller asked for it (SCAN is the
		// better choice, docs/keyspace.md).
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
		return Mono.fromFuture(() -> keysOnMasters(bytes)).map((keys) -> keys.stream().map(ByteBuffer::wrap).toList());
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
			layout = layout
				.exceptionallyCompose((ignored) -> this.transport.clusterNodes(seed).thenApply(ClusterNodes::parse));
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

	private static void checkOptions(ScanOptions options) {
		if (options == null) {
			throw new IllegalArgumentException("'options' must not be null");
		}
	}

	/**
	 * Creates a scan (not started).
	 * @param options match, count and type
	 * @param cacheClear whether a cache clear runs it: it removes every key where its
	 * walk found it
	 */
	ClusterScan newScan(ScanOptions options, boolean cacheClear) {
		String type = (options instanceof KeyScanOptions keyOptions) ? keyOptions.getType() : null;
		return new ClusterScan(this.transport, this.settings, options.getBytePattern(), options.getCount(), type,
				this.observer, cacheClear);
	}

}
