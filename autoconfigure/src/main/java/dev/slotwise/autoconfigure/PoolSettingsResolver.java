package dev.slotwise.autoconfigure;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import dev.slotwise.pool.PoolSettings;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;

/**
 * Resolves the effective pool settings of one client: a value the application set under
 * {@code spring.data.redis.<client>.pool.*} wins, then {@code slotwise.pool.*} (set or default). Invalid results
 * fail start-up naming the property that holds the bad value.
 */
final class PoolSettingsResolver {

	private PoolSettingsResolver() {
	}

	/**
	 * Returns whether the application turned pooling off for the client with
	 * {@code spring.data.redis.<client>.pool.enabled=false}.
	 */
	static boolean isPoolingDisabledByUser(Environment environment, String client) {
		return Binder.get(environment)
			.bind("spring.data.redis." + client + ".pool.enabled", Boolean.class)
			.map((enabled) -> !enabled)
			.orElse(false);
	}

	/**
	 * Returns the default maximum connections per node: eight per processor, at least 16.
	 */
	static int defaultMaxTotal() {
		return Math.max(16, 8 * Runtime.getRuntime().availableProcessors());
	}

	static PoolSettings resolve(SlotwiseProperties.Pool pool, Environment environment, String client) {
		Binder binder = Binder.get(environment);
		String boot = "spring.data.redis." + client + ".pool.";
		Map<String, String> origins = new HashMap<>();

		int maxTotal = pick(binder, boot + "max-active", Integer.class, origins, "maxTotal",
				"slotwise.pool.max-total", (pool.getMaxTotal() != null) ? pool.getMaxTotal() : defaultMaxTotal());
		int maxIdle = pick(binder, boot + "max-idle", Integer.class, origins, "maxIdle", "slotwise.pool.max-idle",
				(pool.getMaxIdle() != null) ? pool.getMaxIdle() : maxTotal);
		int minIdle = pick(binder, boot + "min-idle", Integer.class, origins, "minIdle", "slotwise.pool.min-idle",
				pool.getMinIdle());
		Duration maxWait = pick(binder, boot + "max-wait", Duration.class, origins, "maxWait",
				"slotwise.pool.max-wait", pool.getMaxWait());
		Duration evictionRuns = pick(binder, boot + "time-between-eviction-runs", Duration.class, origins,
				"timeBetweenEvictionRuns", "slotwise.pool.time-between-eviction-runs",
				pool.getTimeBetweenEvictionRuns());
		origins.put("testOnBorrow", "slotwise.pool.test-on-borrow");
		origins.put("testOnReturn", "slotwise.pool.test-on-return");
		origins.put("testWhileIdle", "slotwise.pool.test-while-idle");
		origins.put("softMinEvictableIdleTime", "slotwise.pool.soft-min-evictable-idle-time");

		PropertyChecks.requireAtLeast(origins.get("maxTotal"), maxTotal, 0);
		if (maxTotal == 0) {
			throw new InvalidConfigurationPropertyValueException(origins.get("maxTotal"), maxTotal,
					"A pool of at most 0 connections can serve no command; use a positive size.");
		}
		PropertyChecks.requireAtLeast(origins.get("maxIdle"), maxIdle, 0);
		PropertyChecks.requireAtLeast(origins.get("minIdle"), minIdle, 0);
		if (minIdle > maxTotal) {
			throw new InvalidConfigurationPropertyValueException(origins.get("minIdle"), minIdle,
					"It must not be greater than " + origins.get("maxTotal") + " (" + maxTotal + ").");
		}
		if (minIdle > maxIdle) {
			throw new InvalidConfigurationPropertyValueException(origins.get("minIdle"), minIdle,
					"It must not be greater than " + origins.get("maxIdle") + " (" + maxIdle + ").");
		}
		PropertyChecks.requireNotNegative("slotwise.pool.soft-min-evictable-idle-time",
				pool.getSoftMinEvictableIdleTime());
		return new PoolSettings(maxTotal, maxIdle, minIdle, maxWait, pool.isTestOnBorrow(), pool.isTestOnReturn(),
				pool.isTestWhileIdle(), evictionRuns, pool.getSoftMinEvictableIdleTime(), pool.isJmxEnabled(),
				origins);
	}

	private static <T> T pick(Binder binder, String bootProperty, Class<T> type, Map<String, String> origins,
			String setting, String slotwiseProperty, T slotwiseValue) {
		Optional<T> userValue = binder.bind(bootProperty, type).map(Optional::of).orElse(Optional.empty());
		origins.put(setting, userValue.isPresent() ? bootProperty : slotwiseProperty);
		return userValue.orElse(slotwiseValue);
	}

}
