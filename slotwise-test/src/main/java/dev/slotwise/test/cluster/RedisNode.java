package dev.slotwise.test.cluster;

/**
 * One {@code redis-server} of a test cluster, addressed on loopback.
 *
 * @param host the host the node listens on
 * @param port the client port (the cluster bus has a port of its own:
 * {@link RedisTestCluster#busPort(RedisNode)})
 */
public record RedisNode(String host, int port) {

	/**
	 * Returns {@code host:port}, the form Spring Boot's
	 * {@code spring.data.redis.cluster.nodes} takes.
	 * @return the address
	 */
	public String address() {
		return this.host + ":" + this.port;
	}

	@Override
	public String toString() {
		return address();
	}

}
