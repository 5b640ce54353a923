package dev.slotwise.test.cluster;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.PropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Adds a {@link RedisClusterConnectionDetails} bean for the test class's cluster. Like
 * Spring Boot's service connections, the bean replaces the nodes of the application's
 * configuration ({@code application.yml}); a test that names the nodes itself
 * ({@code spring.data.redis.cluster.nodes} in {@code @SpringBootTest(properties)},
 * {@code @TestPropertySource(properties)} or a {@code @DynamicPropertySource}) keeps
 * them.
 * <p>
 * Equal for every test class of one shared cluster, so that Spring's context cache shares
 * their context; a dedicated cluster's customizer is its class's alone.
 */
final class RedisClusterContextCustomizer implements ContextCustomizer {

	/** The bean name, so that tests and diagnostics can find it. */
	static final String BEAN_NAME = "slotwiseTestRedisClusterConnectionDetails";

	private static final String NODES_PROPERTY = "spring.data.redis.cluster.nodes";

	/** The name of the property source of {@code @DynamicPropertySource} methods. */
	private static final String DYNAMIC_PROPERTIES = "Dynamic Test Properties";

	private final Class<?> testClass;

	private final Object key;

	RedisClusterContextCustomizer(Class<?> testClass, Object key) {
		this.testClass = testClass;
		this.key = key;
	}

	@Override
	public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
		// Decided when the context refreshes, before any configuration class is read:
		// every initializer (the
		// @DynamicPropertySource one included) has run by then.
		context.addBeanFactoryPostProcessor(new BeanDefinitionRegistryPostProcessor() {

			@Override
			public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
				if (!nodesSetByTheTest(context, mergedConfig)) {
					RedisTestCluster cluster = RedisClusters.of(RedisClusterContextCustomizer.this.testClass);
					context.getBeanFactory().registerSingleton(BEAN_NAME, new RedisClusterConnectionDetails(cluster));
				}
			}

			@Override
			public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
			}

		});
	}

	private static boolean nodesSetByTheTest(ConfigurableApplicationContext context,
			MergedContextConfiguration mergedConfig) {
		for (String property : mergedConfig.getPropertySourceProperties()) {
			String trimmed = property.trim();
			if (trimmed.startsWith(NODES_PROPERTY) && trimmed.length() > NODES_PROPERTY.length()
					&& "=: \t".indexOf(trimmed.charAt(NODES_PROPERTY.length())) >= 0) {
				return true;
			}
		}
		PropertySource<?> dynamic = context.getEnvironment().getPropertySources().get(DYNAMIC_PROPERTIES);
		return dynamic != null && dynamic.containsProperty(NODES_PROPERTY);
	}

	@Override
	public boolean equals(Object other) {
		return (other instanceof RedisClusterContextCustomizer customizer) && this.key.equals(customizer.key);
	}

	@Override
	public int hashCode() {
		return this.key.hashCode();
	}

}
