package dev.slotwise.internal.cluster;

import java.util.function.Function;

import org.springframework.util.Assert;

/**
 * A feature of Slotwise's Lettuce cluster connections, registered as a bean by its own
 * auto-configuration. Features know nothing of each other: each is started on the
 * {@link LettuceClusterRuntime} they share.
 */
public interface LettuceClusterFeature {

	/**
	 * Returns the feature's name, for messages and the start-up log.
	 * @return the name, such as {@code multikey}
	 */
	String name();

	/**
	 * Starts the feature once per connection factory, before the factory starts; a
	 * feature may also set the factory's reactive hooks here.
	 * @param runtime what the factory's features share
	 * @return what the feature adds to each connection
	 */
	StartedFeature<LettuceConnectionView> start(LettuceClusterRuntime runtime);

	/**
	 * Returns a feature of the given name that starts with the given function.
	 * @param name the feature's name
	 * @param start starts the feature (see {@link #start})
	 * @return the feature
	 */
	static LettuceClusterFeature of(String name,
			Function<LettuceClusterRuntime, StartedFeature<LettuceConnectionView>> start) {
		Assert.hasText(name, "'name' must not be empty");
		Assert.notNull(start, "'start' must not be null");
		return new LettuceClusterFeature() {

			@Override
			public String name() {
				return name;
			}

			@Override
			public StartedFeature<LettuceConnectionView> start(LettuceClusterRuntime runtime) {
				return start.apply(runtime);
			}

		};
	}

}
