package dev.slotwise.test.cluster;

import java.util.List;

/**
 * Starts and stops the {@code redis-server} processes behind a {@link RedisTestCluster}.
 * Forming the cluster is the same for every launcher and is done by
 * {@link RedisTestCluster}.
 */
interface NodeLauncher extends AutoCloseable {

	/**
	 * Starts one cluster-enabled, empty {@code redis-server} per pair of ports, with its
	 * cluster bus on the pair's bus port ({@code cluster-port}), and returns once each
	 * accepts commands.
	 * @param ports the client and bus ports of each node, free when chosen
	 * @throws PortsTakenException when nodes exited because a port was taken meanwhile;
	 * the others keep running
	 */
	void start(List<LoopbackPorts.NodePorts> ports);

	/**
	 * Stops one node abruptly (as a crash would), leaving the others running.
	 * @param port the node's port
	 */
	void kill(int port);

	/**
	 * Starts a node again that {@link #kill(int)} stopped, on the same ports and with the
	 * cluster state it had saved.
	 * @param port the node's port
	 */
	void restart(int port);

	/**
	 * Sets the extra configuration of nodes started from now on (those running keep
	 * theirs).
	 * @param extraArguments more {@code redis-server} arguments, e.g.
	 * {@code --bind 127.0.0.1 127.0.0.3}
	 */
	default void reconfigure(List<String> extraArguments) {
		throw new UnsupportedOperationException(describe() + " cannot change the configuration of its nodes");
	}

	/**
	 * Waits until a node that was told to shut down ({@code SHUTDOWN}) has exited, so
	 * that it can be {@link #restart(int) started again}.
	 * @param port the node's port
	 * @param timeout how long to wait
	 */
	default void awaitStopped(int port, java.time.Duration timeout) {
		throw new UnsupportedOperationException(describe() + " cannot wait for a node to stop");
	}

	/** Stops every process this launcher started, and only those. */
	@Override
	void close();

	/**
	 * Describes the launcher for messages.
	 * @return a short description
	 */
	String describe();

}
