package dev.slotwise.internal.health;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.slotwise.internal.compat.FastPath;
import dev.slotwise.internal.compat.JedisInternals;
import dev.slotwise.internal.compat.LettuceInternals;
import dev.slotwise.internal.compat.SpringBootInternals;
import dev.slotwise.internal.compat.SpringDataInternals;
import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Which of Slotwise's fast paths a connection factory takes: each one relies on a library
 * internal or extension point that an upgrade could remove, and falls back to the
 * library's public behaviour when it is missing. The same list feeds the start-up log
 * line, the health details and the Actuator {@code info} contribution.
 */
public final class FastPaths {

	private static final boolean JEDIS_PRESENT = ClassUtils.isPresent("redis.clients.jedis.UnifiedJedis",
			FastPaths.class.getClassLoader());

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			FastPaths.class.getClassLoader());

	private FastPaths() {
	}

	/**
	 * Returns the fast paths of a connection factory.
	 * @param factory the factory
	 * @return its fast paths, empty for a factory that is not Slotwise's
	 */
	public static List<FastPath> of(RedisConnectionFactory factory) {
		if (JEDIS_PRESENT && factory instanceof SlotwiseJedisConnectionFactory) {
			return List.of(SpringBootInternals.factoryReplacement(), JedisInternals.slotCache(),
					SpringDataInternals.jedisTopologyType(), SpringDataInternals.jedisPipelineReplay(),
					JedisInternals.retrySettingsAccess(), JedisInternals.renewalPacing());
		}
		if (LETTUCE_PRESENT && factory instanceof SlotwiseLettuceConnectionFactory lettuce) {
			return Lettuce.of(lettuce);
		}
		return List.of();
	}

	/**
	 * Describes fast paths by name, for health details and Actuator {@code info}.
	 * @param fastPaths the fast paths
	 * @return each name with {@link FastPath#describe()}, in order
	 */
	public static Map<String, String> describe(List<FastPath> fastPaths) {
		Map<String, String> described = new LinkedHashMap<>();
		fastPaths.forEach((fastPath) -> described.put(fastPath.name(), fastPath.describe()));
		return described;
	}

	/**
	 * Summarizes fast paths in one line: those active, then those off with why and what
	 * happens instead.
	 * @param fastPaths the fast paths
	 * @return the summary
	 */
	public static String summarize(List<FastPath> fastPaths) {
		List<String> active = new ArrayList<>();
		List<String> off = new ArrayList<>();
		for (FastPath fastPath : fastPaths) {
			if (fastPath.active()) {
				active.add(fastPath.name());
			}
			else {
				off.add(fastPath.name() + " " + fastPath.describe());
			}
		}
		return "active " + (active.isEmpty() ? "none" : String.join(", ", active))
				+ (off.isEmpty() ? "" : "; " + String.join("; ", off));
	}

	/**
	 * Lettuce-only code, loaded only when Lettuce is present.
	 */
	private static final class Lettuce {

		static List<FastPath> of(SlotwiseLettuceConnectionFactory factory) {
			List<FastPath> fastPaths = new ArrayList<>();
			fastPaths.add(SpringBootInternals.factoryReplacement());
			fastPaths.add(LettuceInternals.cancelledStayUnwritten(factory.getNativeClient()));
			fastPaths.add(LettuceInternals.batchWrite());
			fastPaths.add(LettuceInternals.batchWriteListeners());
			fastPaths.add(LettuceInternals.readFromOrder());
			fastPaths.add(LettuceInternals.eventEndpointId());
			fastPaths.add(LettuceInternals.scanArgs());
			if (factory.isReactiveRoutingActive() || factory.getReactiveRoutingProblem() != null) {
				fastPaths.add(new FastPath("lettuce-reactive-routing",
						"LettuceConnectionFactory.doCreateConnectionProvider (protected) and Lettuce's public reactive "
								+ "cluster commands",
						"reactive cross-slot calls run as Spring Data Redis and Lettuce run them",
						factory.getReactiveRoutingProblem()));
			}
			return fastPaths;
		}

	}

}
