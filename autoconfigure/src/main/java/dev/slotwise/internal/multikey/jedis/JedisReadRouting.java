package dev.slotwise.internal.multikey.jedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

import dev.slotwise.internal.multikey.NodeTransport.ErrorReply;
import dev.slotwise.internal.multikey.NodeTransport.Request;
import dev.slotwise.internal.compat.JedisNodePools;
import dev.slotwise.internal.pool.BrokenJedisConnections;
import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.SlotHash;
import dev.slotwise.internal.routing.SlotTable;
import dev.slotwise.multikey.MultiKeyReadFrom;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.RedisClusterNode;

/**
 * Picks the node a Jedis node batch is sent to when reads may go to replicas
 * ({@link MultiKeyReadFrom}), and sends a read batch a replica fails again to the master.
 * <p>
 * Replicas come from the same topology the engine routes by (Spring Data Redis's
 * {@code CLUSTER NODES} view), their connections from Jedis's per-node pools, which Jedis
 * creates for the replicas its slot table lists; a replica the topology lists and Jedis's
 * slot table not yet gets its pool set up when the topology is indexed. A replica serves
 * reads of its master's slots only on a connection in {@code READONLY} mode; Jedis's
 * pools do not send it (its {@code readOnlyForRedisClusterReplicas} flag would, but on
 * every connection of the application, masters included), so it is sent here, once on
 * each pooled connection before its first batch (one round trip), and remembered per
 * connection.
 * <p>
 * Only batches of reads ({@code MGET}, {@code EXISTS}) that the engine routed by slot to
 * the slot's master are candidates: writes, and commands a redirect ({@code MOVED},
 * {@code ASK}, {@code TRYAGAIN}) sent to a node, go to that node. A replica batch gets
 * half of the call's timeout as its socket timeout, so that the master still has time to
 * serve it when the replica does not answer.
 * <p>
 * Known limit: only masters answer {@code ASK}, so while a slot migrates, a replica of
 * the source master reads the keys already moved as missing; the README warns about it.
 */
final class JedisReadRouting {

	/**
	 * How long {@link MultiKeyReadFrom#REPLICA_PREFERRED} leaves a replica that failed a
	 * batch aside.
	 */
	static final Duration QUARANTINE = Duration.ofSeconds(5);

	private static final Log logger = LogFactory.getLog(JedisReadRouting.class);

	/** Cluster flags of a replica that cannot serve. */
	private static final Set<RedisClusterNode.Flag> DOWN = EnumSet.of(RedisClusterNode.Flag.FAIL,
			RedisClusterNode.Flag.PFAIL, RedisClusterNode.Flag.HANDSHAKE, RedisClusterNode.Flag.NOADDR);

	private final MultiKeyReadFrom readFrom;

	private final Supplier<ClusterTopology> topology;

	private final RedisClusterClient client;

	private final Supplier<Map<String, ConnectionPool>> pools;

	/**
	 * The longest a replica may take to answer before its batch goes to the master, in
	 * milliseconds.
	 */
	private final int replicaTimeoutMillis;

	/**
	 * Pooled replica connections already in {@code READONLY} mode (identity:
	 * {@code Connection} keeps equals).
	 */
	private final Set<Connection> readOnly = Collections
		.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

	/**
	 * Replicas that failed a batch, with the {@link System#nanoTime()} until which they
	 * are left aside.
	 */
	private final Map<NodeAddress, Long> failed = new ConcurrentHashMap<>();

	/** Returns broken replica connections to their pools, off the batch's thread. */
	private final Executor releaser;

	private volatile @Nullable Replicas replicas;

	/**
	 * Creates the routing.
	 * @param readFrom where reads go
	 * @param topology the topology the engine last routed by
	 * @param client the cluster client, whose node pools (by {@code host:port}) the
	 * batches use
	 * @param callTimeout the engine's bound on a call: a replica gets half of it to
	 * answer, so that the master still has time to serve the batch when the replica does
	 * not
	 * @param releaser returns broken replica connections to their pools, off the batch's
	 * thread
	 */
	JedisReadRouting(MultiKeyReadFrom readFrom, Supplier<ClusterTopology> topology, RedisClusterClient client,
			Duration callTimeout, Executor releaser) {
		this.releaser = releaser;
		this.client = client;
		this.pools = client::getClusterNodes;
		this.readFrom = readFrom;
		this.topology = topology;
		this.replicaTimeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, callTimeout.toMillis() / 2));
	}

	/**
	 * Sends a batch to the node the engine routed it to, or, for reads when replicas may
	 * serve them, to a replica of that master; when the replica fails (a connection error
	 * or timeout, {@code LOADING}, {@code MASTERDOWN}), the batch is sent again to the
	 * master.
	 * @param node the master the engine routed the batch to, or the node a redirect named
	 * @param requests the batch
	 * @param sender sends the batch to a node
	 * @return the replies
	 */
	List<Object> send(NodeAddress node, List<Request> requests, BatchSender sender) {
		NodeAddress replica = replicaFor(node, requests);
		if (replica == null) {
			return sender.send(node, Session.NONE);
		}
		try {
			List<Object> replies = sender.send(replica, new ReplicaSession(replica));
			String refusal = refusal(replies);
			if (refusal == null) {
				return replies;
			}
			failed(replica, node, refusal);
		}
		catch (CancellationException ex) {
			// The call ended (failed elsewhere or timed out): not the replica's fault,
			// and nothing more to send.
			throw ex;
		}
		catch (RuntimeException ex) {
			failed(replica, node, String.valueOf(ex));
		}
		return sender.send(node, Session.NONE);
	}

	/**
	 * Returns whether a batch goes to the node the engine routed it to whatever the
	 * replicas' state: reads stay on masters, or the batch is not one a replica may
	 * serve.
	 * @param requests the batch
	 * @return whether no replica is ever chosen for it
	 */
	boolean mastersOnly(List<Request> requests) {
		return this.readFrom == MultiKeyReadFrom.MASTER || !Request.replicaMayServe(requests);
	}

	private @Nullable NodeAddress replicaFor(NodeAddress node, List<Request> requests) {
		if (this.readFrom == MultiKeyReadFrom.MASTER || !Request.replicaMayServe(requests)) {
			return null;
		}
		Replicas current = replicas();
		// Every request of a batch routed by slot belongs to the same master, so one slot
		// tells the candidates.
		int slot = SlotHash.slot(requests.get(0).args()[0]);
		if (!node.equals(current.masters.owner(slot))) {
			return null;
		}
		List<NodeAddress> replicas = current.byMaster.getOrDefault(node, List.of());
		if (replicas.isEmpty()) {
			return null;
		}
		// Jedis drops the pool of a node its slot table no longer lists (a replica gone
		// down): such a replica is skipped rather than sent a batch that could only fail.
		Set<String> pools = this.pools.get().keySet();
		long now = System.nanoTime();
		List<NodeAddress> candidates = new ArrayList<>(replicas.size());
		for (NodeAddress replica : replicas) {
			if (!pools.contains(replica.toString())) {
				continue;
			}
			Long until = this.failed.get(replica);
			if (this.readFrom == MultiKeyReadFrom.REPLICA_PREFERRED && until != null && now - until < 0) {
				continue;
			}
			candidates.add(replica);
		}
		if (candidates.isEmpty()) {
			return null;
		}
		return (candidates.size() == 1) ? candidates.get(0)
				: candidates.get(ThreadLocalRandom.current().nextInt(candidates.size()));
	}

	/**
	 * Returns the replicas of each master, indexed once per topology the provider hands
	 * out.
	 */
	private Replicas replicas() {
		ClusterTopology topology = this.topology.get();
		Replicas current = this.replicas;
		if (current == null || current.topology != topology) {
			current = Replicas.of(topology, this.client);
			this.replicas = current;
		}
		return current;
	}

	/**
	 * Returns why a replica refused a batch it should serve ({@code LOADING} while it
	 * loads its data set, {@code MASTERDOWN} when it lost its master and is configured
	 * not to serve stale data), or {@code null}.
	 */
	private static @Nullable String refusal(List<Object> replies) {
		for (Object reply : replies) {
			if (reply instanceof ErrorReply error
					&& (error.message().startsWith("LOADING") || error.message().startsWith("MASTERDOWN"))) {
				return error.message();
			}
		}
		return null;
	}

	private void failed(NodeAddress replica, NodeAddress master, String cause) {
		Long previous = this.failed.put(replica, System.nanoTime() + QUARANTINE.toNanos());
		if (previous == null || System.nanoTime() - previous >= 0) {
			logger.warn("Replica " + replica + " failed a read batch (" + cause + "); the batch goes to master "
					+ master + ((this.readFrom == MultiKeyReadFrom.REPLICA_PREFERRED)
							? ", as do reads of its slots for the next " + QUARANTINE.toSeconds() + " s" : ""));
		}
	}

	/**
	 * Sends a batch to one node.
	 */
	@FunctionalInterface
	interface BatchSender {

		/**
		 * Sends the batch.
		 * @param node the node
		 * @param session prepares the borrowed connection and is closed before it goes
		 * back to its pool
		 * @return the replies
		 */
		List<Object> send(NodeAddress node, Session session);

	}

	/**
	 * What a batch does to the connection it borrows: nothing for masters; for replicas,
	 * {@code READONLY} once per connection and a shorter socket timeout for the batch.
	 */
	interface Session {

		/** Leaves the connection as it is. */
		Session NONE = new Session() {
		};

		/**
		 * Prepares a borrowed connection before the batch is written.
		 * @param connection the connection
		 * @return a handle that restores the connection; closed before the connection
		 * goes back to its pool
		 */
		default Restore open(Connection connection) {
			return () -> {
			};
		}

	}

	/**
	 * Restores a connection a {@link Session} prepared.
	 */
	interface Restore extends AutoCloseable {

		@Override
		void close();

	}

	private final class ReplicaSession implements Session {

		private final NodeAddress replica;

		ReplicaSession(NodeAddress replica) {
			this.replica = replica;
		}

		@Override
		public Restore open(Connection connection) {
			int socketTimeout = connection.getSoTimeout();
			try {
				if (socketTimeout == 0 || socketTimeout > JedisReadRouting.this.replicaTimeoutMillis) {
					connection.setSoTimeout(JedisReadRouting.this.replicaTimeoutMillis);
				}
				if (!JedisReadRouting.this.readOnly.contains(connection)) {
					connection.executeCommand(Protocol.Command.READONLY);
					JedisReadRouting.this.readOnly.add(connection);
				}
			}
			catch (RuntimeException ex) {
				// READONLY refused (an ACL without it) leaves a sound connection: it goes
				// back as it came.
				if (!releaseIfBroken(connection) && connection.getSoTimeout() != socketTimeout) {
					connection.setSoTimeout(socketTimeout);
				}
				throw ex;
			}
			return () -> {
				if (!releaseIfBroken(connection) && connection.getSoTimeout() != socketTimeout) {
					connection.setSoTimeout(socketTimeout);
				}
			};
		}

		/**
		 * Hands a broken connection back to its pool on another thread
		 * ({@link BrokenJedisConnections}): towards a replica that hangs, the
		 * replacement's handshake would hold the batch for the whole socket timeout
		 * before it could go to the master.
		 */
		private boolean releaseIfBroken(Connection connection) {
			if (!connection.isBroken()) {
				return false;
			}
			ConnectionPool pool = JedisReadRouting.this.pools.get().get(this.replica.toString());
			if (pool != null) {
				BrokenJedisConnections.returnOffThread(connection, pool, JedisReadRouting.this.releaser);
			}
			return true;
		}

	}

	/**
	 * The replicas the cluster considers up, by master, and the masters' slots, keyed as
	 * Jedis keys its pools.
	 */
	private record Replicas(ClusterTopology topology, SlotTable masters, Map<NodeAddress, List<NodeAddress>> byMaster) {

		static Replicas of(ClusterTopology topology, RedisClusterClient client) {
			Map<String, ConnectionPool> pools = client.getClusterNodes();
			Map<NodeAddress, int[]> slots = new HashMap<>();
			Map<String, NodeAddress> masterById = new HashMap<>();
			for (RedisClusterNode master : topology.getActiveMasterNodes()) {
				NodeAddress address = JedisNodePools.address(master, pools.keySet());
				if (address != null) {
					slots.put(address, master.getSlotRange().getSlotsArray());
					if (master.getId() != null) {
						masterById.put(master.getId(), address);
					}
				}
			}
			Map<NodeAddress, List<NodeAddress>> byMaster = new HashMap<>();
			for (RedisClusterNode node : topology.getNodes()) {
				if (!node.isReplica() || node.getMasterId() == null
						|| (node.getFlags() != null && !Collections.disjoint(node.getFlags(), DOWN))
						|| node.getLinkState() == RedisClusterNode.LinkState.DISCONNECTED) {
					continue;
				}
				NodeAddress master = masterById.get(node.getMasterId());
				NodeAddress address = JedisNodePools.address(node, pools.keySet());
				if (master != null && address != null) {
					// A replica Jedis's slot cache does not list yet (a fresh cluster's
					// CLUSTER SLOTS leaves out replicas whose replication offset has not
					// reached every node) gets its pool now, not at Jedis's next renewal.
					try {
						JedisNodePools.findOrSetUp(client, pools, node);
					}
					catch (RuntimeException ex) {
						// Unreachable: its master serves its reads until the topology
						// says more.
						logger.debug("Could not set up the pool of replica " + address, ex);
						continue;
					}
					byMaster.computeIfAbsent(master, (key) -> new ArrayList<>(2)).add(address);
				}
			}
			return new Replicas(topology, SlotTable.of(slots), byMaster);
		}

	}

}
