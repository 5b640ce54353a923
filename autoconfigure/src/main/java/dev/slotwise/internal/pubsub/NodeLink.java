package dev.slotwise.internal.pubsub;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.slotwise.internal.routing.NodeAddress;
import org.jspecify.annotations.Nullable;

/**
 * One pub/sub connection to one node, as a {@link ClusterSubscription} uses it.
 * Implementations are client-specific; calls come from one thread at a time (the
 * subscription's lock), events from the client's reader.
 */
interface NodeLink {

	/**
	 * Returns the node.
	 * @return the node this link is connected to
	 */
	NodeAddress node();

	/**
	 * Subscribes names of one kind.
	 * @param kind the kind
	 * @param names the names, not empty
	 * @return completes when the node confirmed every name, exceptionally when it cannot
	 */
	CompletableFuture<Void> subscribe(ChannelKind kind, List<byte[]> names);

	/**
	 * Unsubscribes names of one kind, without waiting for the node's confirmation.
	 * @param kind the kind
	 * @param names the names, not empty
	 */
	void unsubscribe(ChannelKind kind, List<byte[]> names);

	/**
	 * Tells whether the link still delivers: {@code false} once its connection failed or
	 * ended, after which the subscription opens a new one.
	 * @return whether it is open
	 */
	boolean isOpen();

	/**
	 * Ends the link: unsubscribes what it holds and releases its connection. Never blocks
	 * on a dead node.
	 */
	void close();

	/**
	 * What a link reports, from the client's reader thread.
	 */
	interface Events {

		/**
		 * A message arrived.
		 * @param link the link
		 * @param kind how it was subscribed
		 * @param channel the channel it was published on
		 * @param body the message
		 * @param pattern the pattern that matched, for {@link ChannelKind#PATTERN}
		 */
		void message(NodeLink link, ChannelKind kind, byte[] channel, byte[] body, byte @Nullable [] pattern);

		/**
		 * The node unsubscribed a sharded channel on its own: its slot moved to another
		 * node.
		 * @param link the link
		 * @param channel the channel
		 */
		void unsubscribedByServer(NodeLink link, byte[] channel);

		/**
		 * The link's connection failed or ended without {@link NodeLink#close()}.
		 * @param link the link
		 * @param cause why, if known
		 */
		void lost(NodeLink link, @Nullable Throwable cause);

	}

}
