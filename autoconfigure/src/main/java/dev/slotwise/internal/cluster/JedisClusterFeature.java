package dev.slotwise.internal.cluster;

import java.util.function.Function;

import org.springframework.util.Assert;

/**
 * A feature of Slotwise's Jedis cluster connections, registered as a bean by its own
 * auto-configuration. Features know nothing of each other: each is started on the
 * {@link JedisClusterRuntime} they share.
 */
public interface JedisClusterFeature {

	/**
	 * Returns the feature's name, for messages and the start-up log.
	 * @return the name, such as {@code multikey}
	 */
	String name();

	/**
	 * Starts the feature once per start of a connection factory (a restarted factory has
	 * a new client).
	 * @param runtime what the factory's features share
	 * @return what the feature adds to each connection
	 */
	StartedFeature<ConnectionView> start(JedisClusterRuntime runtime);

	/**
	 * Returns a feature of the given name that starts with the given function.
	 * @param name the feature's name
	 * @param start starts the feature (see {@link #start})
	 * @return the feature
	 */
	static JedisClusterFeature of(String name, Function<JedisClusterRuntime, StartedFeature<ConnectionView>> start) {
		Assert.hasText(name, "'name' must not be empty");
		Assert.notNull(start, "'start' must not be null");
		return new JedisClusterFeature() {

			@Override
			public String name() {
				return name;
			}

			@Override
			public StartedFeature<ConnectionView> start(JedisClusterRuntime runtime) {
				return start.apply(runtime);
			}

		};
	}

}
