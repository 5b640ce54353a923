package dev.slotwise.internal.nearcache;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.slotwise.internal.routing.NodeAddress;
import org.jspecify.annotations.Nullable;

/**
 * One connection of Slotwise's own to one node, with {@code CLIENT TRACKING ON ... BCAST}
 * on the tracked prefixes: the node sends it an invalidation for every write to a key
 * under them, whoever writes. Implementations are client-specific.
 */
interface InvalidationLink {

	/**
	 * Returns the node.
	 * @return the node this link is connected to
	 */
	NodeAddress node();

	/**
	 * Completes once tracking is on and invalidations flow: from then on, no write on the
	 * node goes unreported while the link is open. Completes exceptionally with
	 * {@link TrackingRefusedException} when the node refuses tracking, with another
	 * exception when it cannot be reached.
	 * @return the readiness
	 */
	CompletableFuture<Void> ready();

	/**
	 * Tells whether the link still delivers: {@code false} once its connection failed or
	 * ended.
	 * @return whether it is open
	 */
	boolean isOpen();

	/**
	 * Called on every tracking check: a link that has heard nothing from its node for a
	 * while asks it for a sign of life, and reports itself lost when none comes, so that
	 * a connection that died silently (a network partition without a reset) is not taken
	 * for a quiet one for long.
	 */
	default void heartbeat() {
	}

	/**
	 * Ends the link and releases its connection (the node drops the tracking with it).
	 * Never blocks on a dead node.
	 */
	void close();

	/**
	 * What a link reports, from the client's reader.
	 */
	interface Events {

		/**
		 * The node said keys changed.
		 * @param link the link
		 * @param keys the keys, or {@code null} when every key must be taken as changed
		 * (a {@code FLUSHALL})
		 */
		void invalidated(InvalidationLink link, @Nullable List<byte[]> keys);

		/**
		 * The link's connection failed or ended without {@link InvalidationLink#close()}:
		 * invalidations may have been lost.
		 * @param link the link
		 * @param cause why, if known
		 */
		void lost(InvalidationLink link, @Nullable Throwable cause);

	}

}
