package dev.slotwise.test.cluster;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The clusters of {@link WithRedisCluster} test classes, for the JUnit extension and the
 * Spring test integration alike, whichever asks first: shared clusters by {@link Spec}
 * for the whole JVM (their shutdown hook stops them), dedicated ones by the annotated
 * class until {@link #release(Class)}.
 */
final class RedisClusters {

	private static final Map<Spec, RedisTestCluster> SHARED = new ConcurrentHashMap<>();

	private static final Map<Class<?>, RedisTestCluster> DEDICATED = new ConcurrentHashMap<>();

	private RedisClusters() {
	}

	/**
	 * Returns the cluster of a test class, starting it when it does not run yet.
	 * @param testClass the test class, annotated itself or enclosed in an annotated class
	 * @return the running cluster
	 */
	static RedisTestCluster of(Class<?> testClass) {
		Annotated annotated = find(testClass).orElseThrow(() -> new IllegalStateException(
				testClass.getName() + " must be annotated with @" + WithRedisCluster.class.getSimpleName()));
		if (annotated.settings().dedicated()) {
			return DEDICATED.computeIfAbsent(annotated.declaringClass(), (key) -> annotated.spec().start());
		}
		return SHARED.computeIfAbsent(annotated.spec(), Spec::start);
	}

	/**
	 * Stops the dedicated cluster of a test class, if it has one of its own (a
	 * {@code @Nested} class uses the one of the class that encloses it).
	 * @param testClass the test class
	 */
	static void release(Class<?> testClass) {
		find(testClass).filter((annotated) -> annotated.settings().dedicated())
			.filter((annotated) -> annotated.declaringClass() == testClass)
			.map((annotated) -> DEDICATED.remove(annotated.declaringClass()))
			.ifPresent(RedisTestCluster::close);
	}

	/**
	 * Finds the annotation on a class, its superclasses, or the classes that enclose a
	 * {@code @Nested} class.
	 * @param testClass the test class
	 * @return the annotation and the class that carries it
	 */
	static Optional<Annotated> find(Class<?> testClass) {
		for (Class<?> candidate = testClass; candidate != null; candidate = candidate.getEnclosingClass()) {
			Optional<WithRedisCluster> settings = AnnotationSupport.findAnnotation(candidate, WithRedisCluster.class);
			if (settings.isPresent()) {
				return Optional.of(new Annotated(settings.get(), candidate));
			}
		}
		return Optional.empty();
	}

	/**
	 * A {@link WithRedisCluster} and the class it was found on.
	 *
	 * @param settings the annotation
	 * @param declaringClass the test class carrying it (directly or inherited), or the
	 * class enclosing a {@code @Nested} test class
	 */
	record Annotated(WithRedisCluster settings, Class<?> declaringClass) {

		Spec spec() {
			return Spec.of(this.settings);
		}

		/**
		 * Returns the key a Spring context is cached under: the spec, and the class for a
		 * dedicated cluster.
		 * @return the key
		 */
		Object contextKey() {
			return this.settings.dedicated() ? Map.entry(spec(), this.declaringClass) : spec();
		}

	}

	/**
	 * What tells two clusters apart.
	 *
	 * @param shape the shape
	 * @param security the security mode
	 * @param username the ACL user
	 * @param password the password
	 * @param container whether the nodes run in a container
	 */
	record Spec(ClusterShape shape, WithRedisCluster.Security security, String username, String password,
			boolean container) {

		static Spec of(WithRedisCluster settings) {
			if (settings.container() && settings.security() != WithRedisCluster.Security.NONE) {
				throw new IllegalArgumentException("@WithRedisCluster(container = true) supports security NONE only, "
						+ "not " + settings.security());
			}
			return new Spec(new ClusterShape(settings.masters(), settings.replicasPerMaster()), settings.security(),
					settings.username(), settings.password(), settings.container());
		}

		RedisTestCluster start() {
			if (this.container) {
				if (!DockerLauncher.isAvailable()) {
					throw new IllegalStateException(DockerLauncher.UNAVAILABLE);
				}
				return RedisTestCluster.start(this.shape, new DockerLauncher());
			}
			return switch (this.security) {
				case NONE -> RedisTestCluster.start(this.shape);
				case REQUIRE_PASS ->
					RedisTestCluster.startSecured(this.shape, ClusterSecurity.requirePass(this.password));
				case ACL_USER ->
					RedisTestCluster.startSecured(this.shape, ClusterSecurity.aclUser(this.username, this.password));
				case TLS -> RedisTestCluster.startSecured(this.shape, ClusterSecurity.tls(TlsCertificates.generate()));
			};
		}

	}

}
