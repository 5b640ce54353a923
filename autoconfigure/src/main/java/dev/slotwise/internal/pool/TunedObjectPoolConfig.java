package dev.slotwise.internal.pool;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

/**
 * The commons-pool2 configuration Slotwise builds from {@link PoolSettings} for Lettuce's
 * connection pool.
 *
 * @param <T> the pooled object type
 */
public class TunedObjectPoolConfig<T> extends GenericObjectPoolConfig<T> implements TunedPoolConfig {

	private final PoolSettings settings;

	/**
	 * Creates a configuration holding the given settings.
	 * @param settings the settings to apply
	 */
	public TunedObjectPoolConfig(PoolSettings settings) {
		this.settings = settings;
		settings.applyTo(this);
	}

	@Override
	public PoolSettings getSettings() {
		return this.settings;
	}

}
