package dev.slotwise.internal.pool;

import redis.clients.jedis.ConnectionPoolConfig;

/**
 * The Jedis pool configuration Slotwise builds from {@link PoolSettings}. Its type tells
 * Slotwise, later in start-up, that the application did not replace it with a pool
 * configuration of its own.
 */
public class TunedConnectionPoolConfig extends ConnectionPoolConfig implements TunedPoolConfig {

	private final PoolSettings settings;

	/**
	 * Creates a configuration holding the given settings.
	 * @param settings the settings to apply
	 */
	public TunedConnectionPoolConfig(PoolSettings settings) {
		this.settings = settings;
		settings.applyTo(this);
	}

	@Override
	public PoolSettings getSettings() {
		return this.settings;
	}

}
