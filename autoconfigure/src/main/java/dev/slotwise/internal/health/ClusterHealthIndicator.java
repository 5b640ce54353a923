package dev.slotwise.internal.health;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.internal.health.FastPaths;
import dev.slotwise.internal.compat.JedisNodePools;
import dev.slotwise.internal.nearcache.NearCacheRuntime;
import dev.slotwise.internal.topology.RefreshableTopologyProvider;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;

import org.springframework.boot.data.redis.health.DataRedisHealthIndicator;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisClusterNode.Flag;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * Health of a Redis Cluster reached through a Slotwise connection factory.
 * <p>
 * {@code UP} when the masters of the cached topology cover all 16384 hash slots and every
 * master answered its last probe; {@code DOWN} otherwise. Each check sends one
 * {@code PING}, to one master, the masters taking turns, so that every master is probed
 * once every few checks; the topology is the one Slotwise already holds (fetched by
 * application traffic, at most once per {@code slotwise.topology.cache-ttl}), so a check
 * never sends {@code CLUSTER NODES} while that topology exists — only the first check of
 * an idle application, or the check after a failed probe, fetches one. Details list every
 * node with its role, slot count and flags, and, for Jedis, its pool's connections. With
 * the near cache on, {@code nearCache} shows its invalidation link to each node and why
 * the servers refused tracking, if they did; it never makes the status {@code DOWN}:
 * without its links the near cache sends reads to Redis.
 * <p>
 * Any other connection factory is checked by Spring Boot's own
 * {@link DataRedisHealthIndicator}.
 */
public final class ClusterHealthIndicator extends AbstractHealthIndicator {

	private static final int SLOTS = 16384;

	private static final boolean JEDIS_PRESENT = ClassUtils.isPresent("redis.clients.jedis.ConnectionPool",
			ClusterHealthIndicator.class.getClassLoader());

	private final RedisConnectionFactory connectionFactory;

	private final @Nullable HealthIndicator fallback;

	private final Supplier<@Nullable NearCacheRuntime> nearCache;

	private final AtomicInteger turn = new AtomicInteger();

	/**
	 * Outcome of each master's last probe: {@code null} value when it answered, the error
	 * otherwise.
	 */
	private final Map<String, String> lastProbes = new ConcurrentHashMap<>();

	private volatile boolean lastProbeFailed;

	/**
	 * Creates an indicator for one connection factory.
	 * @param connectionFactory the factory; a non-Slotwise one is checked by Spring
	 * Boot's indicator
	 */
	public ClusterHealthIndicator(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, () -> null);
	}

	/**
	 * Creates an indicator for one connection factory, with the near cache's invalidation
	 * links in its details.
	 * @param connectionFactory the factory; a non-Slotwise one is checked by Spring
	 * Boot's indicator
	 * @param nearCache the near cache, {@code null} when it is off
	 */
	public ClusterHealthIndicator(RedisConnectionFactory connectionFactory,
			Supplier<@Nullable NearCacheRuntime> nearCache) {
		super("Redis Cluster health check failed");
		Assert.notNull(connectionFactory, "'connectionFactory' must not be null");
		Assert.notNull(nearCache, "'nearCache' must not be null");
		this.connectionFactory = connectionFactory;
		this.nearCache = nearCache;
		this.fallback = isSlotwise(connectionFactory) ? null : new DataRedisHealthIndicator(connectionFactory);
	}

	private static boolean isSlotwise(RedisConnectionFactory factory) {
		// The Jedis type is only touched when Jedis is present: an application on Lettuce
		// alone may not have it.
		return (JEDIS_PRESENT && factory instanceof SlotwiseJedisConnectionFactory)
				|| factory instanceof SlotwiseLettuceConnectionFactory;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		if (this.fallback != null) {
			Health health = this.fallback.health();
			builder.status(health.getStatus()).withDetails(health.getDetails());
			return;
		}
		ClusterTopology topology = topology();
		List<RedisClusterNode> masters = new ArrayList<>();
		BitSet covered = new BitSet(SLOTS);
		for (RedisClusterNode node : topology.getNodes()) {
			if (node.isMaster() && !failed(node)) {
				masters.add(node);
				for (int slot : node.getSlotRange().getSlotsArray()) {
					covered.set(slot);
				}
			}
		}
		masters.sort(Comparator.comparing(ClusterHealthIndicator::address));
		this.lastProbes.keySet().retainAll(masters.stream().map(ClusterHealthIndicator::address).toList());
		if (!masters.isEmpty()) {
			probe(masters.get(Math.floorMod(this.turn.getAndIncrement(), masters.size())));
		}
		List<String> unreachable = masters.stream()
			.map(ClusterHealthIndicator::address)
			.filter((address) -> this.lastProbes.containsKey(address) && !this.lastProbes.get(address).isEmpty())
			.toList();
		int slotsCovered = covered.cardinality();
		builder.withDetail("slotsCovered", slotsCovered)
			.withDetail("masters", masters.size())
			.withDetail("unreachableMasters", unreachable)
			.withDetail("nodes", nodeDetails(topology))
			.withDetail("fastPaths", FastPaths.describe(FastPaths.of(this.connectionFactory)));
		NearCacheRuntime nearCache = this.nearCache.get();
		if (nearCache != null) {
			// A detail only: without its links the near cache sends reads to Redis, and
			// the application works.
			builder.withDetail("nearCache", NearCacheDetails.of(nearCache));
		}
		if (slotsCovered == SLOTS && !masters.isEmpty() && unreachable.isEmpty()) {
			builder.up();
		}
		else {
			builder.down();
		}
	}

	private ClusterTopology topology() {
		ClusterTopologyProvider provider = (JEDIS_PRESENT
				&& this.connectionFactory instanceof SlotwiseJedisConnectionFactory jedis)
						? jedis.getRequiredTopologyProvider()
						: ((SlotwiseLettuceConnectionFactory) this.connectionFactory).getRequiredTopologyProvider();
		if (provider instanceof RefreshableTopologyProvider refreshable) {
			ClusterTopology last = refreshable.lastFetchedTopology();
			if (last != null && !this.lastProbeFailed) {
				return last;
			}
		}
		// Lettuce's provider converts topology Lettuce already holds: no command. Jedis's
		// fetches one only when it has none yet, or after a failed probe (at most once
		// per cache TTL).
		return provider.getTopology();
	}

	private void probe(RedisClusterNode master) {
		String address = address(master);
		try {
			ping(master, address);
			this.lastProbes.put(address, "");
			this.lastProbeFailed = false;
		}
		catch (RuntimeException ex) {
			this.lastProbes.put(address, String.valueOf(ex.getMessage()));
			this.lastProbeFailed = true;
			if (JEDIS_PRESENT && this.connectionFactory instanceof SlotwiseJedisConnectionFactory jedis
					&& jedis.getRequiredTopologyProvider() instanceof RefreshableTopologyProvider refreshable) {
				refreshable.invalidate();
			}
		}
	}

	private void ping(RedisClusterNode master, String address) {
		if (JEDIS_PRESENT && this.connectionFactory instanceof SlotwiseJedisConnectionFactory jedis) {
			// Straight to the node's pool: Spring Data Redis's node lookup would consult
			// the topology, and refresh it once its cache has expired.
			JedisProbe.ping(jedis, master, address);
			return;
		}
		// Lettuce: Spring Data Redis finds the node in topology Lettuce already holds,
		// without a command.
		try (RedisClusterConnection connection = this.connectionFactory.getClusterConnection()) {
			connection.ping(master);
		}
	}

	private Map<String, Map<String, Object>> nodeDetails(ClusterTopology topology) {
		Map<String, ConnectionPool> pools = jedisPools();
		Map<String, Map<String, Object>> nodes = new LinkedHashMap<>();
		topology.getNodes().stream().sorted(Comparator.comparing(ClusterHealthIndicator::address)).forEach((node) -> {
			String address = address(node);
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("role", node.isMaster() ? "master" : "replica");
			details.put("slots", node.getSlotRange().getSlotsArray().length);
			details.put("flags", node.getFlags().stream().map(Flag::getRaw).sorted().toList());
			String probe = this.lastProbes.get(address);
			if (probe != null) {
				details.put("lastProbe", probe.isEmpty() ? "ok" : probe);
			}
			ConnectionPool pool = pools.isEmpty() ? null : JedisNodePools.find(pools, node);
			if (pool != null) {
				details.put("pool", Map.of("active", pool.getNumActive(), "idle", pool.getNumIdle(), "waiting",
						pool.getNumWaiters()));
			}
			nodes.put(address, details);
		});
		return nodes;
	}

	private Map<String, ConnectionPool> jedisPools() {
		if (JEDIS_PRESENT && this.connectionFactory instanceof SlotwiseJedisConnectionFactory jedis) {
			return jedis.getRequiredClusterClient().getClusterNodes();
		}
		return Map.of();
	}

	/**
	 * Jedis-only code, loaded only when Jedis is present.
	 */
	private static final class JedisProbe {

		static void ping(SlotwiseJedisConnectionFactory factory, RedisClusterNode node, String address) {
			ConnectionPool pool = JedisNodePools.find(factory.getRequiredClusterClient().getClusterNodes(), node);
			if (pool == null) {
				throw new IllegalStateException("The client holds no connection pool for " + address);
			}
			try (Connection connection = pool.getResource()) {
				if (!connection.ping()) {
					throw new IllegalStateException("PING to " + address + " was not answered with PONG");
				}
			}
		}

	}

	private static boolean failed(RedisClusterNode node) {
		return node.getFlags().contains(Flag.FAIL) || node.getFlags().contains(Flag.PFAIL)
				|| node.getFlags().contains(Flag.NOADDR);
	}

	private static String address(RedisClusterNode node) {
		return node.getHost() + ":" + node.getPort();
	}

}
