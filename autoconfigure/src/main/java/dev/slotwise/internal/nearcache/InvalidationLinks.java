package dev.slotwise.internal.nearcache;

import java.util.List;

import dev.slotwise.internal.routing.NodeAddress;

/**
 * Opens the {@link InvalidationLink}s of one near cache over one client, and reads the
 * cluster's shards.
 */
interface InvalidationLinks extends AutoCloseable {

	/**
	 * Opens a link to a node; it connects in the background and reports through
	 * {@link InvalidationLink#ready()}.
	 * @param node the node
	 * @param prefixes the key prefixes to track, none covering another
	 * @param events where the link reports
	 * @return the link
	 */
	InvalidationLink open(NodeAddress node, List<byte[]> prefixes, InvalidationLink.Events events);

	/**
	 * Returns the shards of the cluster as the client sees it.
	 * @param fresh whether to ask the cluster now rather than use the client's cached
	 * view
	 * @return the shards
	 * @throws RuntimeException when no view can be had
	 */
	Shards shards(boolean fresh);

	/**
	 * Releases what the links share. Links are closed before.
	 */
	@Override
	void close();

}
