package dev.slotwise.test.cluster;

import java.util.List;

/**
 * Thrown by a {@link NodeLauncher} when nodes exited at start because another process had
 * taken one of their ports ({@code Address already in use}); the other nodes keep
 * running, and the failed ones can start on other ports.
 */
final class PortsTakenException extends IllegalStateException {

	private final List<Integer> clientPorts;

	private final String detail;

	PortsTakenException(List<Integer> clientPorts, String detail) {
		super("redis-server could not bind its ports (client ports " + clientPorts + "): " + detail);
		this.clientPorts = List.copyOf(clientPorts);
		this.detail = detail;
	}

	/**
	 * Returns what the nodes logged.
	 * @return the log lines naming the port
	 */
	String detail() {
		return this.detail;
	}

	/**
	 * Returns the client ports of the nodes that did not start.
	 * @return the client ports
	 */
	List<Integer> clientPorts() {
		return this.clientPorts;
	}

}
