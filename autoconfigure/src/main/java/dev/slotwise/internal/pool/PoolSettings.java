package dev.slotwise.internal.pool;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

import org.springframework.util.Assert;

/**
 * The effective settings of one client's connection pools, each value with the property
 * it came from, so that messages can name what the user should change.
 *
 * @param maxTotal maximum connections per pool
 * @param maxIdle maximum idle connections per pool
 * @param minIdle idle connections kept open per pool
 * @param maxWait how long a borrow may block; negative means forever
 * @param testOnBorrow whether connections are validated when borrowed
 * @param testOnReturn whether connections are validated when returned
 * @param testWhileIdle whether the evictor validates idle connections
 * @param timeBetweenEvictionRuns period of the evictor; zero or negative means it never
 * runs
 * @param softMinEvictableIdleTime idle time after which connections above min-idle are
 * closed
 * @param jmxEnabled whether pools register with JMX
 * @param origins the property each setting came from, keyed by the component name (e.g.
 * {@code "maxTotal"})
 */
public record PoolSettings(int maxTotal, int maxIdle, int minIdle, Duration maxWait, boolean testOnBorrow,
		boolean testOnReturn, boolean testWhileIdle, Duration timeBetweenEvictionRuns,
		Duration softMinEvictableIdleTime, boolean jmxEnabled, Map<String, String> origins) {

	/** The JMX name prefix of pools Slotwise configures. */
	public static final String JMX_NAME_PREFIX = "slotwise-redis-pool";

	public PoolSettings {
		Assert.notNull(maxWait, "'maxWait' must not be null");
		Assert.notNull(timeBetweenEvictionRuns, "'timeBetweenEvictionRuns' must not be null");
		Assert.notNull(softMinEvictableIdleTime, "'softMinEvictableIdleTime' must not be null");
		origins = Map.copyOf(origins);
	}

	/**
	 * Describes a pool configuration Slotwise did not build (the application replaced
	 * it), so that the advisor can still review it.
	 * @param config the configuration
	 * @param source where it came from, for the origins, e.g. {@code "the application's
	 * Jedis pool configuration"}
	 * @return its settings, each from the source
	 */
	public static PoolSettings of(GenericObjectPoolConfig<?> config, String source) {
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

	/**
	 * Returns the property a setting came from.
	 * @param setting the record component name, e.g. {@code "testOnBorrow"}
	 * @return the property name, or the component name when its origin is unknown
	 */
	public String origin(String setting) {
		return this.origins.getOrDefault(setting, setting);
	}

	/**
	 * Copies every setting onto a commons-pool2 configuration. Connections above min-idle
	 * are closed after {@link #softMinEvictableIdleTime()}; connections at or below it
	 * are never closed for idleness, only when validation fails.
	 * @param config the configuration to change
	 * @param <C> the configuration type
	 * @return the same configuration
	 */
	public <C extends GenericObjectPoolConfig<?>> C applyTo(C config) {
		config.setMaxTotal(this.maxTotal);
		config.setMaxIdle(this.maxIdle);
		config.setMinIdle(this.minIdle);
		config.setMaxWait(this.maxWait);
		config.setBlockWhenExhausted(true);
		config.setTestOnCreate(false);
		config.setTestOnBorrow(this.testOnBorrow);
		config.setTestOnReturn(this.testOnReturn);
		config.setTestWhileIdle(this.testWhileIdle);
		config.setTimeBetweenEvictionRuns(this.timeBetweenEvictionRuns);
		// Validate every idle connection on each run: a PING per idle connection every
		// run is cheap next to handing a dead connection to a request.
		config.setNumTestsPerEvictionRun(-1);
		// Never close connections for idleness alone below min-idle (a negative duration
		// turns that rule off).
		config.setMinEvictableIdleDuration(Duration.ofMillis(-1));
		config.setSoftMinEvictableIdleDuration(this.softMinEvictableIdleTime);
		config.setJmxEnabled(this.jmxEnabled);
		config.setJmxNamePrefix(JMX_NAME_PREFIX);
		return config;
	}

}
