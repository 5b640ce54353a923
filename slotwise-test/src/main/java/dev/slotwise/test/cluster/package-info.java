/**
 * A real Redis Cluster of local {@code redis-server} processes for JUnit 5 tests:
 * {@link dev.slotwise.test.cluster.WithRedisCluster} starts one (shared per JVM or per
 * class), registers it with Spring Boot as {@code DataRedisConnectionDetails}, and
 * {@link dev.slotwise.test.cluster.RedisTestCluster} gives the faults (kill a master,
 * {@code CLUSTER FAILOVER}, migrate a slot, pause a node, kill clients) and the servers'
 * own statistics that tests assert with. Ports lie outside the ephemeral range and are
 * claimed against other test JVMs ({@link dev.slotwise.test.cluster.LoopbackPorts}).
 */
@NullMarked
package dev.slotwise.test.cluster;

import org.jspecify.annotations.NullMarked;
