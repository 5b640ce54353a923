package dev.slotwise.internal.pool;

import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Finds pool settings that cost latency or availability and explains each in one warning
 * that names the property and the cost. Silent when the settings are sound.
 */
public final class PoolAdvisor {

	private static final Log logger = LogFactory.getLog(PoolAdvisor.class);

	private PoolAdvisor() {
	}

	/**
	 * Returns one message per harmful setting.
	 * @param settings the effective settings
	 * @param client the client, {@code Jedis} or {@code Lettuce}: validation costs a
	 * round trip only with Jedis
	 * @return the messages, empty when the settings are sound
	 */
	public static List<String> review(PoolSettings settings, String client) {
		List<String> advice = new ArrayList<>();
		// Jedis validates with a PING round trip; Lettuce's pool only checks that the
		// connection is open, which costs nothing worth a warning.
		boolean validationCostsARoundTrip = "Jedis".equals(client);
		if (settings.testOnBorrow() && validationCostsARoundTrip) {
			advice.add(settings.origin("testOnBorrow") + "=true sends a PING before every command: one extra round "
					+ "trip each, measured at 2-3x lower throughput together with test-on-return. Prefer "
					+ "test-while-idle with eviction runs.");
		}
		if (settings.testOnReturn() && validationCostsARoundTrip) {
			advice.add(settings.origin("testOnReturn") + "=true sends a PING after every command: one extra round "
					+ "trip each, measured at 2-3x lower throughput together with test-on-borrow. Prefer "
					+ "test-while-idle with eviction runs.");
		}
		if (settings.testWhileIdle() && !isPositive(settings.timeBetweenEvictionRuns())) {
			advice.add(settings.origin("testWhileIdle") + "=true does nothing because "
					+ settings.origin("timeBetweenEvictionRuns") + "=" + settings.timeBetweenEvictionRuns()
					+ " never runs the evictor: dead idle connections are found only when a request fails on one, "
					+ "and min-idle is never restored. Set it to a positive duration such as 30s.");
		}
		if (settings.maxWait().isNegative()) {
			advice.add(settings.origin("maxWait") + "=" + settings.maxWait() + " lets a caller wait forever for a "
					+ "connection when the pool is exhausted: a slow node then hangs request threads instead of "
					+ "failing them. Set a bounded wait such as 2s.");
		}
		if (settings.minIdle() > 0 && settings.maxIdle() >= 0 && settings.minIdle() > settings.maxIdle()) {
			advice.add(settings.origin("minIdle") + "=" + settings.minIdle() + " is above " + settings.origin("maxIdle")
					+ "=" + settings.maxIdle() + ": the pool keeps at most " + settings.maxIdle()
					+ " idle connections. Lower the first or raise the second.");
		}
		// Over Lettuce the pool serves dedicated connections only (blocking commands,
		// transactions): every other command shares one connection per node, so an empty
		// pool costs the first requests nothing.
		if (settings.minIdle() == 0 && validationCostsARoundTrip) {
			advice.add(settings.origin("minIdle") + "=0 keeps no connection open: the first requests after start-up "
					+ "and after idle periods pay the TCP connect (and TLS/AUTH) on the request path. Keep a few "
					+ "idle connections, e.g. 4.");
		}
		return advice;
	}

	/**
	 * Logs {@link #review(PoolSettings, String)}'s messages as warnings.
	 * @param settings the effective settings
	 * @param client the client name for messages
	 * @return the messages logged
	 */
	public static List<String> warn(PoolSettings settings, String client) {
		List<String> advice = review(settings, client);
		advice.forEach((message) -> logger.warn(client + " connection pool: " + message));
		return advice;
	}

	private static boolean isPositive(java.time.Duration duration) {
		return !duration.isZero() && !duration.isNegative();
	}

}
