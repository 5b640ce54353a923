package dev.slotwise.test.cluster;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.util.ClassUtils;

/**
 * Registers the cluster of a {@link WithRedisCluster} test class with the Spring test's
 * application context as Spring Boot's {@code DataRedisConnectionDetails}, as Spring
 * Boot's own service connections do for a standalone Redis container. Registered in
 * {@code META-INF/spring.factories}; does nothing for other test classes or where Spring
 * Boot's Redis support is not on the class path.
 */
class RedisClusterContextCustomizerFactory implements ContextCustomizerFactory {

	private static final String CONNECTION_DETAILS = "org.springframework.boot.data.redis.autoconfigure."
			+ "DataRedisConnectionDetails";

	@Override
	public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		if (!ClassUtils.isPresent(CONNECTION_DETAILS, testClass.getClassLoader())) {
			return null;
		}
		return RedisClusters.find(testClass)
			.filter((annotated) -> !annotated.settings().container() || DockerLauncher.isAvailable())
			.map((annotated) -> new RedisClusterContextCustomizer(testClass, annotated.contextKey()))
			.orElse(null);
	}

}
