package dev.slotwise.test.cluster;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class against a real Redis Cluster; test methods, constructors and {@code @BeforeAll} methods take a
 * {@link RedisTestCluster} parameter. Before each test every key is deleted and the server statistics are reset.
 * <p>
 * Shared clusters (the default) start once per shape and test run and stop when the run ends; a test that kills or
 * reconfigures nodes asks for a {@link #dedicated()} cluster, which stops after the class.
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
	 * Whether the class gets a cluster of its own, stopped after the class, instead of the shared one.
	 * @return whether the cluster is dedicated
	 */
	boolean dedicated() default false;

}
