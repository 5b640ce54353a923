package dev.slotwise.internal.routing;

/**
 * The address of a cluster node as clients connect to it.
 *
 * @param host the host name or IP address as the cluster announces it
 * @param port the client port
 */
public record NodeAddress(String host, int port) {

	/**
	 * Validates the address.
	 * @param host the host
	 * @param port the port
	 */
	public NodeAddress {
		if (host == null || host.isEmpty()) {
			throw new IllegalArgumentException("'host' must not be empty");
		}
		if (port < 0 || port > 65535) {
			throw new IllegalArgumentException("'port' must be 0..65535, was " + port);
		}
	}

	/**
	 * Parses {@code host:port}, as {@code MOVED} and {@code ASK} replies name their
	 * target.
	 * @param hostAndPort the address; IPv6 hosts may contain colons, the port follows the
	 * last one
	 * @return the address
	 * @throws IllegalArgumentException if the text has no port
	 */
	public static NodeAddress parse(String hostAndPort) {
		int colon = hostAndPort.lastIndexOf(':');
		if (colon <= 0 || colon == hostAndPort.length() - 1) {
			throw new IllegalArgumentException("'hostAndPort' must be host:port, was '" + hostAndPort + "'");
		}
		String host = hostAndPort.substring(0, colon);
		if (host.startsWith("[") && host.endsWith("]")) {
			host = host.substring(1, host.length() - 1);
		}
		return new NodeAddress(host, Integer.parseInt(hostAndPort.substring(colon + 1)));
	}

	@Override
	public String toString() {
		return this.host + ":" + this.port;
	}

}
