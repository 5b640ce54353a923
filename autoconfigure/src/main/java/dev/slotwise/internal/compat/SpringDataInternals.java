package dev.slotwise.internal.compat;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.RedisClusterNode;

/**
 * The one place Slotwise reaches into Spring Data Redis: the constructor of {@code JedisClusterConnection}'s
 * protected nested {@code JedisClusterTopology} (package-private), so that the topologies of Slotwise's Jedis topology
 * provider have the type Spring Data Redis's own provider returns, with the time they were fetched and how long they
 * stay fresh; code that casts a provider's topology to that type (Spring Data Redis's own tests do) keeps working. No
 * supported API creates one.
 * <p>
 * The constructor is looked up once, when this class loads (a private lookup); {@link #jedisTopologyType()} says
 * whether it was found. When it was not (a Spring Data Redis version without it, a module boundary), topologies are
 * plain {@link ClusterTopology} instances. Loaded only when Jedis is on the class path.
 */
public final class SpringDataInternals {

	/** What {@link #jedisTopologyType()} relies on. */
	static final String TOPOLOGY_CONSTRUCTOR = "org.springframework.data.redis.connection.jedis.JedisClusterConnection"
			+ ".JedisClusterTopology(Set, long, long)";

	private static final String TOPOLOGY_TYPE = "org.springframework.data.redis.connection.jedis.JedisClusterConnection$JedisClusterTopology";

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
	 * @param fetchedAtMillis when it was fetched, in {@link System#currentTimeMillis()} terms
	 * @param ttlMillis how long it stays fresh
	 * @return the topology, a {@code JedisClusterTopology} when {@link #jedisTopologyType()} is active, else a plain
	 * {@link ClusterTopology}
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
