package dev.slotwise.internal.nearcache;

import java.util.List;

import dev.slotwise.internal.routing.NodeAddress;

import org.springframework.data.redis.connection.ClusterTopology;

/**
 * Opens the {@link InvalidationLink}s of one near cache over one client, and reads the
 * cluster's topology.
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
	 * Returns the cluster's topology as the client sees it: the same instance until the
	 * client refreshes it.
	 * @param fresh whether to ask the cluster now rather than use the client's cached
	 * view
	 * @return the topology
	 * @throws RuntimeException when no view can be had
	 */
	ClusterTopology topology(boolean fresh);

	/**
	 * Releases what the links share. Links are closed before.
	 */
	@Override
	void close();

}
