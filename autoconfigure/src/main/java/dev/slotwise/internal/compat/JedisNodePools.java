package dev.slotwise.internal.compat;

import java.util.Map;
import java.util.Set;

import dev.slotwise.internal.routing.NodeAddress;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.data.redis.connection.RedisClusterNode;

/**
 * The one lookup of a Jedis cluster client's per-node pools. Jedis keys them by the
 * endpoints of {@code CLUSTER SLOTS} and of redirects: the announced hostname when the
 * cluster prefers hostnames, the IP otherwise; Spring Data Redis's topology
 * ({@code CLUSTER NODES}) gives the IP as the node's host and the hostname as its name. A
 * node Slotwise's topology lists but Jedis's slot cache does not yet (a fresh cluster's
 * replica whose replication offset has not reached every node's gossip, a new master)
 * gets its pool set up through Jedis ({@link JedisInternals#setUpNode}), so that replica
 * reads and pre-warm never wait for Jedis's next renewal.
 */
public final class JedisNodePools {

	private JedisNodePools() {
	}

	/**
	 * Returns the address Jedis keys a node's pool by, or would key it by once its slot
	 * table lists the node.
	 * @param node a node of Spring Data Redis's topology
	 * @param pools the keys of the client's pools
	 * @return the address, or {@code null} when the node has no valid address
	 */
	public static @Nullable NodeAddress address(RedisClusterNode node, Set<String> pools) {
		String host = node.getHost();
		Integer port = node.getPort();
		if (host == null || host.isEmpty() || port == null) {
			return null;
		}
		String name = node.getName();
		if (name == null || name.isEmpty() || pools.contains(host + ":" + port)) {
			return new NodeAddress(host, port);
		}
		if (pools.contains(name + ":" + port) || keyedByHostname(pools)) {
			return new NodeAddress(name, port);
		}
		return new NodeAddress(host, port);
	}

	/**
	 * Returns the pool of a node.
	 * @param pools the client's pools
	 * @param node a node of Spring Data Redis's topology
	 * @return the pool, or {@code null} when Jedis has none for it
	 */
	public static @Nullable ConnectionPool find(Map<String, ConnectionPool> pools, RedisClusterNode node) {
		NodeAddress address = address(node, pools.keySet());
		return (address != null) ? pools.get(address.toString()) : null;
	}

	/**
	 * Returns the pool of a node, set up through Jedis when its slot cache does not list
	 * the node yet.
	 * @param client the cluster client, open
	 * @param pools the client's pools, as just read
	 * @param node a node of Spring Data Redis's topology
	 * @return the pool, or {@code null} when Jedis has none and none can be set up (see
	 * {@link JedisInternals#slotCache()})
	 * @throws redis.clients.jedis.exceptions.JedisException when a node whose pool is set
	 * up cannot be reached
	 */
	public static @Nullable ConnectionPool findOrSetUp(RedisClusterClient client, Map<String, ConnectionPool> pools,
			RedisClusterNode node) {
		NodeAddress address = address(node, pools.keySet());
		if (address == null) {
			return null;
		}
		ConnectionPool pool = pools.get(address.toString());
		if (pool != null || pools.isEmpty()) {
			// None at all means the client was closed: setting up a pool would leak it.
			return pool;
		}
		return JedisInternals.setUpNode(client, address.host(), address.port());
	}

	/**
	 * Returns the pool of the node a route or redirect names, set up when Jedis does not
	 * know the node yet: through Jedis's provider, or, when it cannot be reached, through
	 * a keyed command that makes Jedis follow the redirect and renew its slot cache on
	 * {@code MOVED} ({@code EXISTS}: the cheapest keyed command, and it changes nothing).
	 * @param client the cluster client
	 * @param node the node
	 * @param key a key of a slot the node serves, for the fallback
	 * @return the pool
	 * @throws DataAccessResourceFailureException when the client is closed or cannot get
	 * a pool for the node
	 */
	public static ConnectionPool forAddress(RedisClusterClient client, NodeAddress node, byte[] key) {
		ConnectionPool pool = knownOrSetUp(client, node, null);
		if (pool == null) {
			client.exists(key);
			pool = client.getClusterNodes().get(node.toString());
		}
		if (pool == null) {
			throw unknown(node);
		}
		return pool;
	}

	/**
	 * Returns the pool of a node named by its address and, when the cluster announces
	 * one, its hostname (Jedis keys its pools by the endpoints of {@code CLUSTER SLOTS}:
	 * the hostname when the cluster prefers them); set up through Jedis's provider when
	 * its slot cache does not list the node yet (a replica just promoted, a new master).
	 * @param client the cluster client
	 * @param address the node's address
	 * @param hostname the node's announced hostname, or {@code null}
	 * @return the pool
	 * @throws DataAccessResourceFailureException when the client is closed or cannot get
	 * a pool for the node
	 */
	public static ConnectionPool forEndpoint(RedisClusterClient client, NodeAddress address,
			@Nullable String hostname) {
		ConnectionPool pool = knownOrSetUp(client, address, hostname);
		if (pool == null) {
			throw unknown(address);
		}
		return pool;
	}

	/**
	 * The pool Jedis holds for a node (by its address, else by its hostname), or one set
	 * up through Jedis's provider.
	 * @throws DataAccessResourceFailureException when the client is closed
	 */
	private static @Nullable ConnectionPool knownOrSetUp(RedisClusterClient client, NodeAddress address,
			@Nullable String hostname) {
		Map<String, ConnectionPool> pools = client.getClusterNodes();
		if (pools.isEmpty()) {
			// An open client always knows its seed nodes; none left means it was closed.
			// Setting up a pool or renewing the slot cache now would re-create pools on
			// the closed client, leaking their connections.
			throw new DataAccessResourceFailureException("The Jedis cluster client is closed");
		}
		ConnectionPool pool = pools.get(address.toString());
		if (pool == null && hostname != null) {
			pool = pools.get(hostname + ":" + address.port());
		}
		return (pool != null) ? pool : JedisInternals.setUpNode(client, address.host(), address.port());
	}

	private static DataAccessResourceFailureException unknown(NodeAddress address) {
		return new DataAccessResourceFailureException("Node " + address + " is unknown to the Jedis cluster client");
	}

	/**
	 * Tells whether Jedis keys its pools by hostnames: the cluster prefers hostnames as
	 * endpoints.
	 */
	private static boolean keyedByHostname(Set<String> pools) {
		for (String key : pools) {
			int colon = key.lastIndexOf(':');
			String host = (colon > 0) ? key.substring(0, colon) : key;
			if (!isIpLiteral(host)) {
				return true;
			}
		}
		return false;
	}

	private static boolean isIpLiteral(String host) {
		return host.indexOf(':') >= 0 || host.chars().allMatch((c) -> c == '.' || (c >= '0' && c <= '9'));
	}

}
