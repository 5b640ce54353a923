package dev.slotwise.internal.pool;

/**
 * A pool configuration Slotwise built from {@link PoolSettings}. Its type tells Slotwise,
 * later in start-up, that the application did not replace it with a pool configuration of
 * its own, and which property each value came from.
 */
public interface TunedPoolConfig {

	/**
	 * Returns the settings this configuration was built from.
	 * @return the settings
	 */
	PoolSettings getSettings();

}
