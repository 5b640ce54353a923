package dev.slotwise.internal.compat;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Jedis;

import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.jedis.JedisConnection;

/**
 * The one place Slotwise reaches into Spring Data Redis:
 * <ul>
 * <li>the constructor of {@code JedisClusterConnection}'s protected nested
 * {@code JedisClusterTopology} (package-private), so that the topologies of Slotwise's
 * Jedis topology provider have the type Spring Data Redis's own provider returns, with
 * the time they were fetched and how long they stay fresh; code that casts a provider's
 * topology to that type (Spring Data Redis's own tests do) keeps working. No supported
 * API creates one ({@link #jedisTopologyType()});</li>
 * <li>a standalone {@link JedisConnection} over a socket borrowed from a Jedis cluster
 * node's pool, used only as Spring Data Redis's converter of a pipeline's arguments and
 * results: Spring Data Redis refuses pipelines on a Jedis cluster, and its standalone
 * connection is the one that converts them exactly as a standalone pipeline does. It is
 * never closed, since without a pool of its own it would close the borrowed socket
 * ({@link #jedisPipelineReplay()}).</li>
 * </ul>
 * Both are looked up once, when this class loads (the constructor through a private
 * lookup); each {@link FastPath} says whether it was found. When the topology constructor
 * was not (a Spring Data Redis version without it, a module boundary), topologies are
 * plain {@link ClusterTopology} instances. Loaded only when Jedis is on the class path.
 */
public final class SpringDataInternals {

	/** What {@link #jedisTopologyType()} relies on. */
	static final String TOPOLOGY_CONSTRUCTOR = "org.springframework.data.redis.connection.jedis.JedisClusterConnection"
			+ ".JedisClusterTopology(Set, long, long)";

	private static final String TOPOLOGY_TYPE = "org.springframework.data.redis.connection.jedis.JedisClusterConnection$JedisClusterTopology";

	/** What {@link #jedisPipelineReplay()} relies on. */
	static final String REPLAY = "org.springframework.data.redis.connection.jedis.JedisConnection(Jedis) and its "
			+ "pipeline over redis.clients.jedis.Jedis(Connection)";

	private static final @Nullable String REPLAY_PROBLEM = checkReplay();

	private static final @Nullable MethodHandle CONSTRUCTOR;

	private static final @Nullable String PROBLEM;

	static {
		MethodHandle constructor = null;
		String problem = null;
		try {
			Class<?> type = Class.forName(TOPOLOGY_TYPE, false, SpringDataInternals.class.getClassLoader());
			constructor = MethodHandles.privateLookupIn(type, MethodHandles.lookup())
				.findConstructor(type, MethodType.methodType(void.class, Set.class, long.class, long.class));
		}
		catch (ReflectiveOperationException | RuntimeException | LinkageError ex) {
			problem = "cannot call " + TOPOLOGY_CONSTRUCTOR + ": " + ex;
		}
		CONSTRUCTOR = constructor;
		PROBLEM = problem;
	}

	private SpringDataInternals() {
	}

	private static @Nullable String checkReplay() {
		try {
			Jedis.class.getConstructor(Connection.class);
			JedisConnection.class.getConstructor(Jedis.class);
			JedisConnection.class.getMethod("openPipeline");
			JedisConnection.class.getMethod("getPipeline");
			JedisConnection.class.getMethod("closePipeline");
			return null;
		}
		catch (ReflectiveOperationException | RuntimeException | LinkageError ex) {
			return "cannot create " + REPLAY + ": " + ex;
		}
	}

	/**
	 * Describes the replay of a Jedis cluster pipeline's commands through Spring Data
	 * Redis's standalone connection.
	 * @return the fast path, active when the constructors and pipeline methods exist
	 */
	public static FastPath jedisPipelineReplay() {
		return new FastPath("spring-data-jedis-pipeline-replay", REPLAY,
				"executePipelined over Jedis on a cluster fails with an exception naming what is missing (Spring Data "
						+ "Redis alone refuses pipelines on a Jedis cluster)",
				REPLAY_PROBLEM);
	}

	/**
	 * Returns Spring Data Redis's standalone connection over a socket borrowed from a
	 * node's pool, to queue commands on its pipeline and convert their results. Never
	 * close it: it has no pool, so closing would close the socket instead of returning
	 * it; return the borrowed {@link Connection} instead.
	 * @param borrowed the borrowed connection
	 * @return the converter over it
	 * @throws IllegalStateException when {@link #jedisPipelineReplay()} is not active
	 */
	@SuppressWarnings("removal")
	public static JedisConnection pipelineOver(Connection borrowed) {
		if (REPLAY_PROBLEM != null) {
			throw new IllegalStateException("Cannot run a pipeline on a Jedis cluster node: " + REPLAY_PROBLEM);
		}
		return new JedisConnection(new Jedis(borrowed));
	}

	/**
	 * Describes the type of the Jedis topology provider's topologies.
	 * @return the fast path, active when the constructor was found
	 */
	public static FastPath jedisTopologyType() {
		return new FastPath("spring-data-jedis-topology-type", TOPOLOGY_CONSTRUCTOR,
				"the Jedis topology provider returns plain ClusterTopology instances: only code that casts a "
						+ "topology to JedisClusterConnection.JedisClusterTopology is affected",
				PROBLEM);
	}

	/**
	 * Creates a topology as Spring Data Redis's Jedis topology provider does.
	 * @param nodes the nodes
	 * @param fetchedAtMillis when it was fetched, in {@link System#currentTimeMillis()}
	 * terms
	 * @param ttlMillis how long it stays fresh
	 * @return the topology, a {@code JedisClusterTopology} when
	 * {@link #jedisTopologyType()} is active, else a plain {@link ClusterTopology}
	 */
	public static ClusterTopology jedisTopology(Set<RedisClusterNode> nodes, long fetchedAtMillis, long ttlMillis) {
		MethodHandle constructor = CONSTRUCTOR;
		if (constructor != null) {
			try {
				return (ClusterTopology) constructor.invoke(nodes, fetchedAtMillis, ttlMillis);
			}
			catch (RuntimeException | Error ex) {
				throw ex;
			}
			catch (Throwable ex) {
				throw new IllegalStateException("Could not create a JedisClusterTopology", ex);
			}
		}
		return new ClusterTopology(nodes);
	}

}
