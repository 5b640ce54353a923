package dev.slotwise.internal.keyspace;

import java.time.Duration;
import java.util.BitSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessResourceFailureException;

/**
 * The failover resume of a {@link ClusterScan}'s walks: a node that stops answering
 * mid-walk is replaced by the master that serves its slots next, found by polling the
 * cluster's layout for up to {@link ScanSettings#failoverTimeout()}, and the walk goes on
 * there (the same node: same cursor; another: from cursor 0, since a {@code SCAN} cursor
 * is a position in one server's hash table). A server error ends the scan instead.
 *
 * @param scan the scan whose walks it resumes
 * @param transport the client, whose topology it invalidates
 * @param failoverTimeout how long it waits for a node's slots to be served again
 */
record WalkRecovery(ClusterScan scan, ScanTransport transport, Duration failoverTimeout) {

	private static final Log logger = LogFactory.getLog(ClusterScan.class);

	private static final long RECOVERY_POLL_MILLIS = 100;

	/**
	 * A node stopped answering: a server error ends the scan; anything else waits for the
	 * slots to be served again and resumes there (the same node: same cursor; another:
	 * from the start).
	 */
	void walkFailed(ScanWalk walk, ClusterNodes.Node node, Throwable failure) {
		Throwable cause = ClusterScan.unwrap(failure);
		if (cause instanceof ScanTransport.ServerError) {
			this.scan.fail(cause);
			return;
		}
		synchronized (this.scan) {
			if (this.scan.isOver()) {
				return;
			}
		}
		logger.debug("Scan of " + node.address() + " failed, waiting for its slots to be served again", cause);
		this.transport.invalidateTopology();
		recover(walk, node, System.nanoTime() + this.failoverTimeout.toNanos(), cause);
	}

	private void recover(ScanWalk walk, ClusterNodes.Node failed, long deadline, @Nullable Throwable cause) {
		CompletableFuture.runAsync(() -> {
		}, CompletableFuture.delayedExecutor(RECOVERY_POLL_MILLIS, TimeUnit.MILLISECONDS))
			.thenCompose((ignored) -> this.scan.layout())
			.whenComplete((layout, failure) -> {
				synchronized (this.scan) {
					if (this.scan.isOver()) {
						return;
					}
				}
				ClusterNodes.Node successor = (layout != null) ? successor(layout, walk) : null;
				if (successor == null) {
					if (System.nanoTime() - deadline > 0) {
						this.scan.fail(new DataAccessResourceFailureException("Scan of " + failed.address()
								+ " failed and no node served its slots again within " + this.failoverTimeout, cause));
					}
					else {
						recover(walk, failed, deadline, cause);
					}
					return;
				}
				synchronized (this.scan) {
					ClusterNodes.Node next = this.scan.walkNode(layout, successor);
					if (!next.id().equals(failed.id())) {
						// A cursor is a position in one server's table: another node
						// starts over.
						walk.cursor = "0";
						walk.restarted = true;
						this.scan.countRestart();
					}
					walk.master = successor;
					walk.node = next;
					walk.inFlight = false;
					this.scan.pageEnded();
				}
				this.scan.pump();
			});
	}

	/**
	 * Returns the master that now serves most of the walk's slots, once it is not marked
	 * failed.
	 */
	private static ClusterNodes.@Nullable Node successor(ClusterNodes layout, ScanWalk walk) {
		ClusterNodes.Node best = null;
		int bestShared = 0;
		for (ClusterNodes.Node master : layout.servingMasters()) {
			BitSet shared = (BitSet) master.slots().clone();
			shared.and(walk.startSlots);
			if (shared.cardinality() > bestShared) {
				best = master;
				bestShared = shared.cardinality();
			}
		}
		return best;
	}

}
