package dev.slotwise.autoconfigure;

import java.util.HashMap;
import java.util.Map;

import dev.slotwise.internal.pool.PoolSettings;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

/**
 * Describes a pool configuration Slotwise did not build (the application replaced it), so
 * that the advisor can still review it.
 */
final class ForeignPoolConfigs {

	private ForeignPoolConfigs() {
	}

	static PoolSettings describe(GenericObjectPoolConfig<?> config, String source) {
		Map<String, String> origins = new HashMap<>();
		for (String setting : new String[] { "maxTotal", "maxIdle", "minIdle", "maxWait", "testOnBorrow",
				"testOnReturn", "testWhileIdle", "timeBetweenEvictionRuns", "softMinEvictableIdleTime" }) {
			origins.put(setting, setting + " in " + source);
		}
		return new PoolSettings(config.getMaxTotal(), config.getMaxIdle(), config.getMinIdle(),
				config.getMaxWaitDuration(), config.getTestOnBorrow(), config.getTestOnReturn(),
				config.getTestWhileIdle(), config.getDurationBetweenEvictionRuns(),
				config.getSoftMinEvictableIdleDuration(), config.getJmxEnabled(), origins);
	}

}
