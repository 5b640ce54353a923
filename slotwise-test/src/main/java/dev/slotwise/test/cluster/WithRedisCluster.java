package dev.slotwise.test.cluster;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class against a real Redis Cluster; test methods, constructors and
 * {@code @BeforeAll} methods take a {@link RedisTestCluster} parameter. Before each test
 * every key is deleted and the server statistics are reset.
 * <p>
 * Shared clusters (the default) start once per JVM for each combination of the attributes
 * and stop when the JVM exits; a test that kills or reconfigures nodes asks for a
 * {@link #dedicated()} cluster, which stops after the class.
 * <p>
 * In a Spring test ({@code @SpringBootTest} and the test slices), the cluster is
 * registered as Spring Boot's {@code DataRedisConnectionDetails} (the {@code Cluster}
 * variant, with the credentials and SSL bundle the {@link #security()} needs), so that
 * the application connects to it without any property. An application that sets
 * {@code spring.data.redis.cluster.nodes} itself keeps its own setting.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RedisClusterExtension.class)
public @interface WithRedisCluster {

	/**
	 * Number of masters.
	 * @return the masters
	 */
	int masters() default 3;

	/**
	 * Number of replicas per master.
	 * @return the replicas per master
	 */
	int replicasPerMaster() default 1;

	/**
	 * Whether the class gets a cluster of its own, stopped after the class, instead of
	 * the shared one.
	 * @return whether the cluster is dedicated
	 */
	boolean dedicated() default false;

	/**
	 * How the nodes admit clients.
	 * @return the security mode
	 */
	Security security() default Security.NONE;

	/**
	 * The password of {@link Security#REQUIRE_PASS} and {@link Security#ACL_USER}.
	 * @return the password
	 */
	String password() default "slotwise-test-secret";

	/**
	 * The application's ACL user of {@link Security#ACL_USER}.
	 * @return the user name
	 */
	String username() default "slotwise-test-app";

	/**
	 * Whether the nodes run in a Docker container ({@code redis:7.4}, host network)
	 * instead of as local {@code redis-server} processes. Where no Docker engine answers,
	 * the class is skipped with that reason. Only with {@link Security#NONE}.
	 * @return whether to run the nodes in a container
	 */
	boolean container() default false;

	/**
	 * How the nodes of a test cluster admit clients.
	 */
	enum Security {

		/** No password, no TLS. */
		NONE,

		/**
		 * The default user needs {@link WithRedisCluster#password()}
		 * ({@code requirepass}).
		 */
		REQUIRE_PASS,

		/**
		 * The default user is off; the application connects as
		 * {@link WithRedisCluster#username()}.
		 */
		ACL_USER,

		/**
		 * Clients connect over TLS only, trusting a CA made for the cluster (needs
		 * {@code openssl}).
		 */
		TLS

	}

}
