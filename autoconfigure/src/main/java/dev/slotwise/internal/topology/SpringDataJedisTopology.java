package dev.slotwise.internal.topology;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.jedis.JedisClusterConnection;

/**
 * Creates the topologies Slotwise's Jedis topology provider returns as Spring Data Redis's own provider does: of
 * type {@code JedisClusterConnection.JedisClusterTopology}, carrying the time it was fetched and how long it stays
 * fresh, so that code that casts a provider's topology to that type (Spring Data Redis's own tests do) keeps working.
 * <p>
 * That type is a protected nested class whose constructor is package-private: no supported API creates one. Its
 * constructor is looked up once, at class initialization, through a private lookup (a library internal, fenced
 * here); when that fails (a Spring Data Redis version without it, or a module boundary), topologies are plain
 * {@link ClusterTopology} instances, as Slotwise returned before, and one WARN names the cause.
 */
final class SpringDataJedisTopology {

	private static final Log logger = LogFactory.getLog(SpringDataJedisTopology.class);

	private static final String TYPE = "org.springframework.data.redis.connection.jedis.JedisClusterConnection$JedisClusterTopology";

	private static final @Nullable MethodHandle CONSTRUCTOR = constructor();

	private SpringDataJedisTopology() {
	}

	/**
	 * Returns whether topologies are of Spring Data Redis's type.
	 * @return whether the constructor was found
	 */
	static boolean isAvailable() {
		return CONSTRUCTOR != null;
	}

	/**
	 * Creates a topology.
	 * @param nodes the nodes
	 * @param fetchedAtMillis when it was fetched, in {@link System#currentTimeMillis()} terms
	 * @param ttlMillis how long it stays fresh
	 * @return the topology, a {@code JedisClusterTopology} when {@link #isAvailable()}
	 */
	static ClusterTopology create(Set<RedisClusterNode> nodes, long fetchedAtMillis, long ttlMillis) {
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

	private static @Nullable MethodHandle constructor() {
		try {
			Class<?> type = Class.forName(TYPE, false, JedisClusterConnection.class.getClassLoader());
			return MethodHandles.privateLookupIn(type, MethodHandles.lookup())
				.findConstructor(type, MethodType.methodType(void.class, Set.class, long.class, long.class));
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			logger.warn("Slotwise's Jedis topology provider returns plain ClusterTopology instances, not Spring Data "
					+ "Redis's JedisClusterConnection.JedisClusterTopology: its constructor (Set, long, long) is not "
					+ "reachable in this Spring Data Redis version (" + ex + "). Only code that casts the topology to "
					+ "that type is affected");
			return null;
		}
	}

}
