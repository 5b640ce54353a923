package dev.slotwise.internal.keyspace;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.slotwise.internal.routing.NodeAddress;
import org.jspecify.annotations.Nullable;

/**
 * What a keyspace walk needs from a client library: a few keyless commands sent to one
 * named node, without waiting (each future completes from the client's I/O or from a
 * thread of the caller's executor). A failure to reach the node completes the future
 * exceptionally with anything but {@link ServerError}; an error reply of the server
 * completes it with {@link ServerError}.
 */
interface ScanTransport {

	/**
	 * Returns the nodes to ask for the cluster's layout, the client's known nodes first.
	 * @return addresses, at least one
	 */
	List<NodeAddress> seeds();

	/**
	 * Sends {@code CLUSTER NODES}.
	 * @param node the node
	 * @return the reply text
	 */
	CompletableFuture<String> clusterNodes(ClusterNodes.Node node);

	/**
	 * Like {@link #clusterNodes(ClusterNodes.Node)}, to a node known only by address (a
	 * seed).
	 * @param address the node's address
	 * @return the reply text
	 */
	CompletableFuture<String> clusterNodes(NodeAddress address);

	/**
	 * Sends one {@code SCAN}.
	 * @param node the node
	 * @param cursor the cursor, {@code "0"} to start
	 * @param match the pattern, or {@code null}
	 * @param count the count hint, or {@code null}
	 * @param type the type filter, or {@code null}
	 * @return the page
	 */
	CompletableFuture<Page> scan(ClusterNodes.Node node, String cursor, byte @Nullable [] match, @Nullable Long count,
			@Nullable String type);

	/**
	 * Reads every key a node holds in some slots ({@code CLUSTER COUNTKEYSINSLOT} then
	 * {@code CLUSTER GETKEYSINSLOT}), and their types when asked.
	 * @param node the node
	 * @param slots the slots
	 * @param withTypes whether to send {@code TYPE} for each key found
	 * @return the keys found, with their types when asked
	 */
	CompletableFuture<List<TypedKey>> keysInSlots(ClusterNodes.Node node, int[] slots, boolean withTypes);

	/**
	 * Sends one {@code UNLINK} per group, pipelined, to one node (a cache clear removing
	 * keys where its walk found them).
	 * @param node the node
	 * @param groups keys, each group of one slot
	 * @return for each group, whether the node executed its {@code UNLINK} (answered a
	 * count; an error reply such as a redirect during a slot migration is {@code false});
	 * completes exceptionally when the node could not be reached
	 */
	CompletableFuture<boolean[]> unlink(ClusterNodes.Node node, List<byte[][]> groups);

	/**
	 * Sends {@code KEYS}.
	 * @param node the node
	 * @param pattern the pattern
	 * @return the keys
	 */
	CompletableFuture<List<byte[]>> keys(ClusterNodes.Node node, byte[] pattern);

	/**
	 * Tells the client its topology is stale (a node failed during a walk).
	 */
	void invalidateTopology();

	/**
	 * Returns whether walks should run on replicas, as the application's read routing
	 * says.
	 * @return whether to prefer replicas
	 */
	boolean readFromReplicas();

	/**
	 * One {@code SCAN} reply.
	 *
	 * @param cursor the next cursor, {@code "0"} at the end
	 * @param keys the keys
	 */
	record Page(String cursor, List<byte[]> keys) {
	}

	/**
	 * A key with its type.
	 *
	 * @param key the key
	 * @param type its type, or {@code null} when not asked or gone
	 */
	record TypedKey(byte[] key, @Nullable String type) {
	}

	/**
	 * An error reply (a bad pattern or type, a refused command): retrying elsewhere
	 * cannot help.
	 */
	final class ServerError extends RuntimeException {

		private static final long serialVersionUID = 1L;

		ServerError(String message, @Nullable Throwable cause) {
			super(message, cause);
		}

	}

}
