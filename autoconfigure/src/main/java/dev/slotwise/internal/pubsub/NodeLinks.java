package dev.slotwise.internal.pubsub;

import dev.slotwise.internal.routing.NodeAddress;

/**
 * Opens the {@link NodeLink}s of one {@link ClusterSubscription} and releases what they
 * share.
 */
interface NodeLinks extends AutoCloseable {

	/**
	 * Opens a link to a node. It may connect lazily, on its first subscription.
	 * @param node the node
	 * @param events where the link reports
	 * @return the link
	 * @throws RuntimeException when the node cannot be reached
	 */
	NodeLink open(NodeAddress node, NodeLink.Events events);

	/**
	 * Returns the serving masters.
	 * @param fresh whether to look at the cluster now rather than at a cached view
	 * @return the masters
	 * @throws RuntimeException when no node answers
	 */
	Masters masters(boolean fresh);

	/**
	 * Releases what the links share. Links are closed before.
	 */
	@Override
	void close();

}
