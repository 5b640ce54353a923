package dev.slotwise.test.cluster;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Runs every node inside one Redis container that shares the host's network, so nodes
 * announce loopback addresses the tests can reach, exactly as local processes do. Used
 * only when no {@code redis-server} binary is installed but a Docker engine is reachable.
 */
final class DockerLauncher implements NodeLauncher {

	private static final DockerImageName IMAGE = DockerImageName.parse("redis:7.4");

	/** Why container mode cannot run where {@link #isAvailable()} is false. */
	static final String UNAVAILABLE = "No Docker engine answered (or Testcontainers is not on the class path), so a "
			+ "test cluster in a container cannot run here; local redis-server processes need neither";

	private @Nullable GenericContainer<?> container;

	/** The cluster bus port of each node, by client port, for restarts. */
	private final Map<Integer, Integer> busPorts = new ConcurrentHashMap<>();

	/**
	 * Tells whether Testcontainers is on the class path and a Docker engine answers.
	 * @return whether this launcher can run
	 */
	static boolean isAvailable() {
		try {
			Class.forName("org.testcontainers.DockerClientFactory", false, DockerLauncher.class.getClassLoader());
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

	@Override
	@SuppressWarnings("resource")
	public void start(List<LoopbackPorts.NodePorts> ports) {
		ports.forEach((node) -> this.busPorts.put(node.client(), node.bus()));
		if (this.container == null) {
			this.container = new GenericContainer<>(IMAGE).withNetworkMode("host")
				.withCommand("sh", "-c", "sleep infinity");
			this.container.start();
		}
		exec(ports.stream().map((node) -> serverCommand(node.client())).collect(Collectors.joining(" && ")));
		for (LoopbackPorts.NodePorts node : ports) {
			exec("until redis-cli -p " + node.client() + " ping; do sleep 0.1; done");
		}
	}

	@Override
	public void kill(int port) {
		exec("redis-cli -p " + port + " shutdown nosave || true");
	}

	@Override
	public void restart(int port) {
		exec(serverCommand(port) + " && until redis-cli -p " + port + " ping; do sleep 0.1; done");
	}

	@Override
	public void close() {
		if (this.container != null) {
			this.container.stop();
		}
	}

	@Override
	public String describe() {
		return "redis-server processes in a " + IMAGE + " container (host network)";
	}

	private String serverCommand(int port) {
		return "mkdir -p /data/" + port + " && redis-server --port " + port + " --bind 127.0.0.1 --cluster-enabled yes"
				+ " --cluster-port " + this.busPorts.get(port)
				+ " --cluster-config-file nodes.conf --cluster-node-timeout 1500 --dir /data/" + port
				+ " --save '' --appendonly no --protected-mode no --daemonize yes --logfile redis.log";
	}

	private void exec(String command) {
		try {
			ExecResult result = this.container.execInContainer("sh", "-c", command);
			if (result.getExitCode() != 0) {
				throw new IllegalStateException(
						"'" + command + "' failed in the Redis container: " + result.getStderr());
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not run '" + command + "' in the Redis container", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running '" + command + "' in the Redis container", ex);
		}
	}

}
