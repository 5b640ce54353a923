package dev.slotwise.test.cluster;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * JUnit Jupiter extension behind {@link WithRedisCluster}: starts (or reuses) a real cluster, resolves
 * {@link RedisTestCluster} parameters and resets data and statistics before each test.
 * <p>
 * Shared clusters live in the root context's store, so JUnit closes them once when the whole run ends; the
 * cluster's own shutdown hook covers a JVM that exits otherwise.
 */
public class RedisClusterExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {

	private static final Namespace NAMESPACE = Namespace.create(RedisClusterExtension.class);

	private static final Map<ClusterShape, Object> LOCKS = new ConcurrentHashMap<>();

	@Override
	public void beforeAll(ExtensionContext context) {
		cluster(context);
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		cluster(context).reset();
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return parameterContext.getParameter().getType() == RedisTestCluster.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext)
			throws ParameterResolutionException {
		return cluster(extensionContext);
	}

	private RedisTestCluster cluster(ExtensionContext context) {
		Class<?> testClass = context.getRequiredTestClass();
		WithRedisCluster settings = AnnotationSupport.findAnnotation(testClass, WithRedisCluster.class)
			.orElseThrow(() -> new IllegalStateException(testClass.getName() + " must be annotated with @"
					+ WithRedisCluster.class.getSimpleName()));
		ClusterShape shape = new ClusterShape(settings.masters(), settings.replicasPerMaster());
		if (settings.dedicated()) {
			ExtensionContext classContext = classContext(context);
			return classContext.getStore(NAMESPACE)
				.computeIfAbsent(testClass.getName(), (key) -> new ClusterResource(RedisTestCluster.start(shape)),
						ClusterResource.class)
				.cluster();
		}
		Object lock = LOCKS.computeIfAbsent(shape, (key) -> new Object());
		synchronized (lock) {
			return context.getRoot()
				.getStore(NAMESPACE)
				.computeIfAbsent(shape, (key) -> new ClusterResource(RedisTestCluster.start(shape)),
						ClusterResource.class)
				.cluster();
		}
	}

	private static ExtensionContext classContext(ExtensionContext context) {
		ExtensionContext current = context;
		while (current.getTestMethod().isPresent() && current.getParent().isPresent()) {
			current = current.getParent().get();
		}
		return current;
	}

	/** Closes the cluster when JUnit closes the store that holds it. */
	private record ClusterResource(RedisTestCluster cluster) implements AutoCloseable {

		@Override
		public void close() {
			this.cluster.close();
		}

	}

}
