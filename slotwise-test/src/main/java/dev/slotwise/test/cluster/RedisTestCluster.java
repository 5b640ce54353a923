package dev.slotwise.test.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/**
 * A real Redis Cluster of {@code redis-server} processes on loopback, for tests, samples
 * and benchmarks.
 * <p>
 * {@link #start(ClusterShape)} takes ports from {@link LoopbackPorts} (outside the
 * ephemeral range, claimed against other test JVMs, never 6379) for each node's client
 * port and its cluster bus ({@code cluster-port}), starts the nodes (a node whose port
 * was taken all the same starts again on other ports), assigns the hash slots in equal
 * ranges to the masters, joins the replicas, and returns once every node reports
 * {@code cluster_state:ok}, knows every other node and every replica's link is up.
 * {@link #close()} stops exactly the processes it started; a JVM shutdown hook does the
 * same when a test run ends without closing it.
 * <p>
 * Server-side truth for assertions comes from the helpers here:
 * {@code INFO commandstats}, {@code CLIENT LIST} and {@code CLUSTER NODES}, read over
 * admin connections named {@value #ADMIN_CLIENT_NAME}.
 */
public final class RedisTestCluster implements AutoCloseable {

	/**
	 * The client name of the connections this class opens, so that tests can leave them
	 * out of counts.
	 */
	public static final String ADMIN_CLIENT_NAME = "slotwise-test-admin";

	private static final int SLOTS = 16384;

	private static final Duration FORMATION_TIMEOUT = Duration.ofSeconds(60);

	/**
	 * How often nodes whose ports were taken start again on other ports before the start
	 * fails.
	 */
	private static final int BIND_ATTEMPTS = 5;

	private final ClusterShape shape;

	private final NodeLauncher launcher;

	private final List<RedisNode> nodes;

	private final LoopbackPorts ports;

	/** The cluster bus port of each node ({@code cluster-port}), by client port. */
	private final Map<Integer, Integer> busPorts = new ConcurrentHashMap<>();

	private final Map<RedisNode, Jedis> admins = new LinkedHashMap<>();

	/** Masters joined with {@link #addMaster()}, beyond the shape's. */
	private volatile int addedMasters;

	private final Set<RedisNode> killed = java.util.concurrent.ConcurrentHashMap.newKeySet();

	private final Thread shutdownHook;

	private volatile boolean closed;

	/**
	 * What each node adds to its port to give the port it announces
	 * ({@code cluster-announce-port}), 0 for none.
	 */
	/**
	 * The port each node announces, by its real port: none unless behind a port mapping.
	 */
	private volatile Map<Integer, Integer> announcedPorts = Map.of();

	/**
	 * The IP every node announces ({@code cluster-announce-ip}), or {@code null} when
	 * they announce none.
	 */
	private volatile @Nullable String announcedIp;

	/** How the nodes admit clients; the admin connections follow it. */
	private volatile ClusterSecurity security = ClusterSecurity.NONE;

	private RedisTestCluster(ClusterShape shape, NodeLauncher launcher, LoopbackPorts ports, String host,
			List<LoopbackPorts.NodePorts> nodePorts) {
		this.shape = shape;
		this.launcher = launcher;
		this.ports = ports;
		nodePorts.forEach((node) -> this.busPorts.put(node.client(), node.bus()));
		this.nodes = new java.util.concurrent.CopyOnWriteArrayList<>(
				nodePorts.stream().map((node) -> new RedisNode(host, node.client())).toList());
		this.addedMasters = 0;
		this.shutdownHook = new Thread(this::stopProcesses, "slotwise-test-cluster-shutdown");
		Runtime.getRuntime().addShutdownHook(this.shutdownHook);
	}

	/**
	 * Starts and forms a cluster of the given shape.
	 * @param shape the number of masters and replicas
	 * @return the running cluster, healthy
	 * @throws IllegalStateException when neither {@code redis-server} nor a Docker engine
	 * is available, or the cluster does not form in time
	 */
	public static RedisTestCluster start(ClusterShape shape) {
		return start(shape, chooseLauncher());
	}

	/**
	 * Starts and forms a cluster of local {@code redis-server} processes with more
	 * configuration for every node, for example {@code --enable-debug-command local} so
	 * that {@code DEBUG SLEEP} can be sent (the chaos soak does). Not shared: the caller
	 * closes it.
	 * @param shape the number of masters and replicas
	 * @param extraArguments more {@code redis-server} arguments for every node
	 * @return the running cluster, healthy
	 * @throws IllegalStateException when {@code redis-server} is not installed, or the
	 * cluster does not form in time
	 */
	public static RedisTestCluster startWithArguments(ClusterShape shape, List<String> extraArguments) {
		String executable = LocalProcessLauncher.findExecutable()
			.orElseThrow(() -> new IllegalStateException("No redis-server found (PATH, /usr/bin, /usr/local/bin, "
					+ "SLOTWISE_REDIS_SERVER); install it with 'apt-get install -y redis-server'"));
		return start(shape, new LocalProcessLauncher(executable, extraArguments));
	}

	/**
	 * Starts and forms a cluster whose nodes announce a hostname and prefer it as their
	 * endpoint ({@code cluster-announce-hostname},
	 * {@code cluster-preferred-endpoint-type hostname}): {@code CLUSTER SLOTS} and
	 * redirects name the hostname, {@code CLUSTER NODES} both. The nodes are addressed by
	 * that hostname, which must resolve to 127.0.0.1. Not shared: the caller closes it.
	 * @param shape the number of masters and replicas
	 * @param hostname the hostname every node announces, e.g. {@code localhost}
	 * @return the running cluster, healthy
	 */
	public static RedisTestCluster startAnnouncingHostname(ClusterShape shape, String hostname) {
		String executable = LocalProcessLauncher.findExecutable()
			.orElseThrow(() -> new IllegalStateException("Hostname endpoints need a local redis-server"));
		return start(shape, new LocalProcessLauncher(executable,
				List.of("--cluster-preferred-endpoint-type", "hostname", "--cluster-announce-hostname", hostname)),
				hostname, null);
	}

	/**
	 * Starts and forms a cluster whose nodes listen on 127.0.0.1 and on a second loopback
	 * address, and announce that second address ({@code cluster-announce-ip}):
	 * {@code CLUSTER SLOTS}, {@code CLUSTER NODES} and redirects name it, while
	 * {@link #nodes()} address the nodes by the name {@code localhost}, which resolves to
	 * 127.0.0.1. The nodes are thus reachable both by the name (the seeds, like a stable
	 * DNS name) and at the announced address (what clients learn from the cluster);
	 * {@link #reannounce(String)} changes the announced address. Not shared: the caller
	 * closes it.
	 * @param shape the number of masters and replicas
	 * @param ip the loopback address every node announces, e.g. {@code 127.0.0.2}
	 * @return the running cluster, healthy
	 */
	public static RedisTestCluster startAnnouncingIp(ClusterShape shape, String ip) {
		String executable = LocalProcessLauncher.findExecutable()
			.orElseThrow(() -> new IllegalStateException("Announced addresses need a local redis-server"));
		return start(shape, new LocalProcessLauncher(executable, announcing(ip)), "localhost", ip);
	}

	/**
	 * Starts and forms a cluster whose nodes announce a client port no process listens on
	 * ({@code cluster-announce-port} = port ± {@code portOffset}), as nodes behind a NAT
	 * or a container's port publishing do: {@code CLUSTER SLOTS}, {@code CLUSTER NODES}
	 * and redirects name 127.0.0.1 and the announced port, which a client reaches only
	 * through an address mapper (Jedis's {@code HostAndPortMapper}, Lettuce's
	 * {@code MappingSocketAddressResolver}). The cluster bus port is announced unchanged,
	 * so the nodes still reach each other; {@link #nodes()} address the nodes at their
	 * real ports. Replicas connect to their master at its announced address, so only a
	 * shape without replicas becomes healthy. Not shared: the caller closes it.
	 * @param shape the number of masters and replicas
	 * <p>
	 * A node announces its port plus {@code portOffset}, or minus it where the sum would
	 * pass 65,535 (test ports are drawn from both sides of the ephemeral range); map
	 * announced ports back with {@link #realPort(int)}.
	 * @param portOffset added to (or taken from) each node's port to give the port it
	 * announces
	 * @return the running cluster, healthy
	 * @throws IllegalStateException when two nodes would announce the same port, or one
	 * the port of another node
	 */
	public static RedisTestCluster startBehindPortMapping(ClusterShape shape, int portOffset) {
		String executable = LocalProcessLauncher.findExecutable()
			.orElseThrow(() -> new IllegalStateException("Announced ports need a local redis-server"));
		IntUnaryOperator announce = (port) -> (port + portOffset <= 65_535) ? port + portOffset : port - portOffset;
		RedisTestCluster cluster = start(shape,
				new LocalProcessLauncher(executable,
						(port) -> List.of("--cluster-announce-port", Integer.toString(announce.applyAsInt(port)))),
				"127.0.0.1", null);
		Map<Integer, Integer> announced = new HashMap<>();
		for (RedisNode node : cluster.nodes) {
			announced.put(node.port(), announce.applyAsInt(node.port()));
		}
		Set<Integer> distinct = new HashSet<>(announced.values());
		if (distinct.size() < announced.size() || distinct.stream().anyMatch(announced::containsKey)) {
			cluster.close();
			throw new IllegalStateException("Nodes on ports " + announced.keySet() + " would announce " + announced
					+ " with the offset " + portOffset + ": announced ports must be distinct and served by none");
		}
		cluster.announcedPorts = Map.copyOf(announced);
		return cluster;
	}

	/**
	 * Returns the real port of a node from the port it announces (see
	 * {@link #startBehindPortMapping}).
	 * @param port a port the cluster reports
	 * @return the port the node listens on; the port itself when no node announces it
	 */
	public int realPort(int port) {
		for (Map.Entry<Integer, Integer> entry : this.announcedPorts.entrySet()) {
			if (entry.getValue() == port) {
				return entry.getKey();
			}
		}
		return port;
	}

	/**
	 * Returns the port a node announces: its own, or the mapped one of
	 * {@link #startBehindPortMapping}.
	 * @param node the node
	 * @return the port {@code CLUSTER SLOTS}, {@code CLUSTER NODES} and redirects name
	 */
	public int announcedPort(RedisNode node) {
		return this.announcedPorts.getOrDefault(node.port(), node.port());
	}

	private static List<String> announcing(String ip) {
		return List.of("--bind", "127.0.0.1", ip, "--cluster-announce-ip", ip);
	}

	/**
	 * Moves every node to a new announced address at once, as when every pod of a cluster
	 * is rescheduled and comes back with a new IP behind the same name: each node saves
	 * its data and shuts down ({@code SHUTDOWN SAVE}), then starts again on the same port
	 * and data, listening on 127.0.0.1 and the new address only (the old one is no longer
	 * served) and announcing the new one; the nodes meet again at their new addresses.
	 * Returns once every node sees every other at its new address and the cluster is
	 * healthy. Only for clusters from {@link #startAnnouncingIp(ClusterShape, String)}.
	 * @param ip the new loopback address, e.g. {@code 127.0.0.3}
	 */
	public void reannounce(String ip) {
		if (this.announcedIp == null) {
			throw new IllegalStateException("Only a cluster started with startAnnouncingIp can move its nodes");
		}
		this.launcher.reconfigure(announcing(ip));
		List<RedisNode> order = new ArrayList<>(replicas());
		this.nodes.stream().filter((node) -> !order.contains(node)).forEach(order::add);
		for (RedisNode node : order) {
			try {
				withAdmin(node, (jedis) -> jedis.sendCommand(Protocol.Command.SHUTDOWN, "SAVE"));
			}
			catch (RuntimeException ex) {
				// The node closes the connection as it exits: no reply is the expected
				// outcome.
			}
		}
		for (RedisNode node : order) {
			this.launcher.awaitStopped(node.port(), Duration.ofSeconds(30));
		}
		for (RedisNode node : this.nodes) {
			this.launcher.restart(node.port());
		}
		this.announcedIp = ip;
		for (RedisNode node : this.nodes) {
			for (RedisNode other : this.nodes) {
				if (!other.equals(node)) {
					meet(node, ip, other);
				}
			}
		}
		await("every node to see every node at " + ip, () -> this.nodes.stream().allMatch((node) -> {
			List<String> lines = clusterNodes(node);
			return lines.size() == this.nodes.size() && lines.stream()
				.allMatch((line) -> line.split(" ")[1].startsWith(ip + ":") && !line.contains("handshake"));
		}), this::describeState);
		awaitHealthy();
	}

	/**
	 * Starts and forms a cluster whose nodes admit clients only as the given mode says:
	 * with the default user's password, as an ACL user (default user off), or over TLS
	 * only. The test kit's admin connections follow the mode; {@link #nodes()} address
	 * the nodes at 127.0.0.1 on their client port (the TLS port in TLS mode). Not shared:
	 * the caller closes it.
	 * @param shape the number of masters and replicas
	 * @param security how the nodes admit clients
	 * @return the running cluster, healthy
	 */
	public static RedisTestCluster startSecured(ClusterShape shape, ClusterSecurity security) {
		String executable = LocalProcessLauncher.findExecutable()
			.orElseThrow(() -> new IllegalStateException("Secured clusters need a local redis-server"));
		return start(shape, new LocalProcessLauncher(executable, security::serverArguments), "127.0.0.1", null,
				security);
	}

	/**
	 * Returns how the nodes admit clients.
	 * @return the mode the cluster was started with
	 */
	public ClusterSecurity security() {
		return this.security;
	}

	static RedisTestCluster start(ClusterShape shape, NodeLauncher launcher) {
		return start(shape, launcher, "127.0.0.1", null);
	}

	private static RedisTestCluster start(ClusterShape shape, NodeLauncher launcher, String host, String announcedIp) {
		return start(shape, launcher, host, announcedIp, ClusterSecurity.NONE);
	}

	private static RedisTestCluster start(ClusterShape shape, NodeLauncher launcher, String host, String announcedIp,
			ClusterSecurity security) {
		LoopbackPorts ports = LoopbackPorts.claim();
		List<LoopbackPorts.NodePorts> nodePorts;
		try {
			nodePorts = startNodes(launcher, ports, shape.size());
		}
		catch (RuntimeException ex) {
			launcher.close();
			ports.close();
			throw new IllegalStateException("Could not start the nodes of a " + shape + " Redis Cluster with "
					+ launcher.describe() + ": " + ex.getMessage(), ex);
		}
		RedisTestCluster cluster = new RedisTestCluster(shape, launcher, ports, host, nodePorts);
		cluster.announcedIp = announcedIp;
		cluster.security = security;
		try {
			cluster.form();
			return cluster;
		}
		catch (RuntimeException ex) {
			cluster.close();
			throw new IllegalStateException("Could not start a " + shape + " Redis Cluster with " + launcher.describe()
					+ ": " + ex.getMessage(), ex);
		}
	}

	private static NodeLauncher chooseLauncher() {
		var executable = LocalProcessLauncher.findExecutable();
		if (executable.isPresent()) {
			return new LocalProcessLauncher(executable.get());
		}
		if (DockerLauncher.isAvailable()) {
			return new DockerLauncher();
		}
		throw new IllegalStateException("The real-cluster tests need redis-server (none on PATH, in /usr/bin or "
				+ "/usr/local/bin, and SLOTWISE_REDIS_SERVER is not set) or a running Docker engine (none answered). "
				+ "Install it with 'apt-get install -y redis-server' (Debian/Ubuntu) or 'brew install redis' (macOS).");
	}

	/**
	 * Starts the nodes, each on a client port and a bus port from {@code ports}; a node
	 * that could not bind because another process took one of its ports after the choice
	 * starts again on other ports.
	 * @return the ports of the running nodes, in start order
	 */
	static List<LoopbackPorts.NodePorts> startNodes(NodeLauncher launcher, LoopbackPorts ports, int count) {
		List<LoopbackPorts.NodePorts> all = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			all.add(ports.nextNode());
		}
		List<LoopbackPorts.NodePorts> pending = List.copyOf(all);
		for (int attempt = 1;; attempt++) {
			try {
				launcher.start(pending);
				return all;
			}
			catch (PortsTakenException ex) {
				if (attempt == BIND_ATTEMPTS) {
					throw ex;
				}
				List<LoopbackPorts.NodePorts> replacements = new ArrayList<>();
				for (int i = 0; i < all.size(); i++) {
					if (ex.clientPorts().contains(all.get(i).client())) {
						LoopbackPorts.NodePorts replacement = ports.nextNode();
						all.set(i, replacement);
						replacements.add(replacement);
					}
				}
				pending = replacements;
			}
		}
	}

	/**
	 * Returns the port of a node's cluster bus ({@code cluster-port}), which
	 * {@code CLUSTER NODES} shows after the {@code @}; it is not the client port + 10000.
	 * @param node the node
	 * @return its bus port
	 */
	public int busPort(RedisNode node) {
		Integer bus = this.busPorts.get(node.port());
		if (bus == null) {
			throw new IllegalStateException(node + " is not a node of " + this);
		}
		return bus;
	}

	/**
	 * {@code CLUSTER MEET} with the bus port, which Redis would otherwise take to be the
	 * client port + 10000.
	 */
	private void meet(RedisNode seed, String ip, RedisNode node) {
		withAdmin(seed, (jedis) -> jedis.sendCommand(Protocol.Command.CLUSTER, "MEET", ip,
				Integer.toString(node.port()), Integer.toString(busPort(node))));
	}

	private void form() {
		List<RedisNode> masters = this.nodes.subList(0, this.shape.masters());
		for (int i = 0; i < masters.size(); i++) {
			int first = i * SLOTS / masters.size();
			int last = (i + 1) * SLOTS / masters.size() - 1;
			withAdmin(masters.get(i), (jedis) -> jedis.clusterAddSlotsRange(first, last));
		}
		RedisNode seed = this.nodes.get(0);
		for (RedisNode node : this.nodes.subList(1, this.nodes.size())) {
			// CLUSTER MEET takes an IP address, whatever name the node is addressed by.
			meet(seed, meetIp(node), node);
		}
		await("every node to know all " + this.nodes.size() + " nodes",
				() -> this.nodes.stream().allMatch((node) -> knownNodes(node) == this.nodes.size()),
				this::describeState);
		for (int r = 0; r < this.shape.masters() * this.shape.replicasPerMaster(); r++) {
			RedisNode replica = this.nodes.get(this.shape.masters() + r);
			String masterId = withAdmin(masters.get(r % masters.size()), Jedis::clusterMyId);
			withAdmin(replica, (jedis) -> jedis.clusterReplicate(masterId));
		}
		awaitHealthy();
	}

	private String meetIp(RedisNode node) {
		String announced = this.announcedIp;
		return (announced != null) ? announced : ipOf(node);
	}

	private static String ipOf(RedisNode node) {
		try {
			return java.net.InetAddress.getByName(node.host()).getHostAddress();
		}
		catch (java.net.UnknownHostException ex) {
			throw new IllegalStateException("Cannot resolve " + node.host(), ex);
		}
	}

	private long knownNodes(RedisNode node) {
		return clusterNodes(node).stream()
			.filter((line) -> !line.contains("handshake") && !line.contains("noaddr"))
			.count();
	}

	/**
	 * Waits until every running node reports {@code cluster_state:ok}, sees the expected
	 * number of masters with all slots covered, and every replica's link to its master is
	 * up.
	 */
	public void awaitHealthy() {
		awaitHealthy(FORMATION_TIMEOUT);
	}

	/**
	 * Waits like {@link #awaitHealthy()} with a given timeout.
	 * @param timeout how long to wait
	 */
	public void awaitHealthy(Duration timeout) {
		await("the cluster to be healthy", () -> isHealthy(), this::describeState, timeout);
	}

	private boolean isHealthy() {
		try {
			for (RedisNode node : this.nodes) {
				if (!withAdmin(node, Jedis::clusterInfo).contains("cluster_state:ok")) {
					return false;
				}
				List<String> lines = clusterNodes(node);
				long masters = lines.stream().filter((l) -> l.contains("master") && !l.contains("fail")).count();
				long replicas = lines.stream().filter((l) -> l.contains("slave") && !l.contains("fail")).count();
				if (masters != this.shape.masters() + this.addedMasters
						|| replicas != (long) this.shape.masters() * this.shape.replicasPerMaster()) {
					return false;
				}
				String replication = withAdmin(node, (jedis) -> jedis.info("replication"));
				if (replication.contains("role:slave") && !replication.contains("master_link_status:up")) {
					return false;
				}
			}
			return true;
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	private String describeState() {
		StringBuilder state = new StringBuilder();
		for (RedisNode node : this.nodes) {
			state.append(System.lineSeparator()).append(node).append(": ");
			try {
				state.append(clusterNodes(node));
			}
			catch (RuntimeException ex) {
				state.append(ex.getMessage());
			}
		}
		return state.toString();
	}

	/**
	 * Returns every node, masters first in start-up order.
	 * @return the nodes
	 */
	public List<RedisNode> nodes() {
		return List.copyOf(this.nodes);
	}

	/**
	 * Starts one more node and joins it to the cluster as a master without slots
	 * (scale-out: move slots to it, for example with {@code CLUSTER SETSLOT} and
	 * {@code MIGRATE}). It counts as a master in {@link #awaitHealthy()}.
	 * @return the new node, known to every node
	 */
	public RedisNode addMaster() {
		LoopbackPorts.NodePorts nodePorts = startNodes(this.launcher, this.ports, 1).get(0);
		this.busPorts.put(nodePorts.client(), nodePorts.bus());
		RedisNode node = new RedisNode(this.nodes.get(0).host(), nodePorts.client());
		this.nodes.add(node);
		this.addedMasters++;
		RedisNode seed = runningNodes().get(0);
		meet(seed, meetIp(node), node);
		await("every node to know the new node " + node,
				() -> runningNodes().stream().allMatch((n) -> knownNodes(n) == runningNodes().size()),
				this::describeState);
		awaitHealthy();
		return node;
	}

	/**
	 * Returns the nodes that are masters now, as the first node answering
	 * {@code CLUSTER NODES} sees them (roles change after a failover). This sends
	 * {@code CLUSTER NODES} over an admin connection, which {@code INFO commandstats}
	 * counts: read roles before {@link #resetStats()} in tests that count that command.
	 * @return the current masters
	 */
	public List<RedisNode> masters() {
		return nodesWithRole("master");
	}

	/**
	 * Returns the nodes that are replicas now; like {@link #masters()}, this sends
	 * {@code CLUSTER NODES}.
	 * @return the current replicas
	 */
	public List<RedisNode> replicas() {
		return nodesWithRole("slave");
	}

	private List<RedisNode> nodesWithRole(String role) {
		RuntimeException last = null;
		for (RedisNode node : this.nodes) {
			try {
				Set<Integer> ports = clusterNodes(node).stream()
					.map((line) -> line.split(" "))
					.filter((fields) -> Arrays.asList(fields[2].split(",")).contains(role)
							&& !fields[2].contains("fail"))
					.map((fields) -> realPort(
							Integer.parseInt(fields[1].substring(fields[1].indexOf(':') + 1).split("[@,]")[0])))
					.collect(Collectors.toSet());
				return this.nodes.stream().filter((n) -> ports.contains(n.port())).toList();
			}
			catch (RuntimeException ex) {
				last = ex;
			}
		}
		throw new IllegalStateException("No node answered CLUSTER NODES", last);
	}

	/**
	 * Returns the node list in Spring Boot's {@code spring.data.redis.cluster.nodes}
	 * format.
	 * @return comma-separated {@code host:port} of every node
	 */
	public String nodesProperty() {
		return this.nodes.stream().map(RedisNode::address).collect(Collectors.joining(","));
	}

	/**
	 * Runs an admin command against one node over a connection named
	 * {@value #ADMIN_CLIENT_NAME}.
	 * @param node the node
	 * @param command what to run
	 * @param <T> the result type
	 * @return the command's result
	 */
	public <T> T withAdmin(RedisNode node, Function<Jedis, T> command) {
		Jedis jedis;
		synchronized (this.admins) {
			jedis = this.admins.computeIfAbsent(node,
					(n) -> new Jedis(new HostAndPort(n.host(), n.port()), this.security
						.admin(DefaultJedisClientConfig.builder().clientName(ADMIN_CLIENT_NAME).timeoutMillis(5000))
						.build()));
		}
		synchronized (jedis) {
			try {
				return command.apply(jedis);
			}
			catch (RuntimeException ex) {
				synchronized (this.admins) {
					this.admins.remove(node);
				}
				jedis.close();
				throw ex;
			}
		}
	}

	/**
	 * Returns the lines of {@code CLUSTER NODES} as one node reports them.
	 * @param node the node to ask
	 * @return one line per known node
	 */
	public List<String> clusterNodes(RedisNode node) {
		return withAdmin(node, Jedis::clusterNodes).lines().filter((line) -> !line.isBlank()).toList();
	}

	/**
	 * Deletes every key ({@code FLUSHALL} on every master) and resets every node's
	 * statistics.
	 */
	public void reset() {
		for (RedisNode master : masters()) {
			withAdmin(master, Jedis::flushAll);
		}
		resetStats();
	}

	/**
	 * Resets {@code INFO commandstats} and the other counters on every running node
	 * ({@code CONFIG RESETSTAT}).
	 */
	public void resetStats() {
		for (RedisNode node : runningNodes()) {
			withAdmin(node, Jedis::configResetStat);
		}
	}

	/**
	 * Returns how often one node executed a command since its last reset, from
	 * {@code INFO commandstats}.
	 * @param node the node
	 * @param command the command as commandstats names it, e.g. {@code get},
	 * {@code ping}, {@code cluster|nodes}
	 * @return the number of calls, 0 when the command never ran
	 */
	public long commandCalls(RedisNode node, String command) {
		String prefix = "cmdstat_" + command.toLowerCase() + ":";
		return withAdmin(node, (jedis) -> jedis.info("commandstats")).lines()
			.filter((line) -> line.startsWith(prefix))
			.map((line) -> line.substring(prefix.length()).split(",")[0])
			.map((calls) -> Long.parseLong(calls.substring("calls=".length())))
			.findFirst()
			.orElse(0L);
	}

	/**
	 * Returns how often each running node executed a command since its last reset.
	 * @param command the command as commandstats names it
	 * @return calls per node, in node order
	 */
	public Map<RedisNode, Long> commandCallsPerNode(String command) {
		Map<RedisNode, Long> calls = new LinkedHashMap<>();
		for (RedisNode node : runningNodes()) {
			calls.put(node, commandCalls(node, command));
		}
		return calls;
	}

	/**
	 * Returns how often all running nodes together executed a command since their last
	 * reset.
	 * @param command the command as commandstats names it
	 * @return the total number of calls
	 */
	public long totalCommandCalls(String command) {
		return commandCallsPerNode(command).values().stream().mapToLong(Long::longValue).sum();
	}

	/**
	 * Returns the clients one node reports in {@code CLIENT LIST}, each as its field map.
	 * @param node the node
	 * @return the clients, including admin connections
	 */
	public List<Map<String, String>> clients(RedisNode node) {
		return withAdmin(node, Jedis::clientList).lines().filter((line) -> !line.isBlank()).map((line) -> {
			Map<String, String> fields = new LinkedHashMap<>();
			for (String pair : line.split(" ")) {
				int eq = pair.indexOf('=');
				if (eq > 0) {
					fields.put(pair.substring(0, eq), pair.substring(eq + 1));
				}
			}
			return fields;
		}).toList();
	}

	/**
	 * Counts one node's connections with a given client name ({@code CLIENT SETNAME}).
	 * @param node the node
	 * @param clientName the name the application under test uses
	 * @return the number of such connections
	 */
	public long countClients(RedisNode node, String clientName) {
		return clients(node).stream().filter((client) -> clientName.equals(client.get("name"))).count();
	}

	/**
	 * Kills the connections with a given client name on one node ({@code CLIENT KILL}).
	 * @param node the node
	 * @param clientName the name the application under test uses
	 * @return the number of connections killed
	 */
	public long killClients(RedisNode node, String clientName) {
		long killed = 0;
		for (Map<String, String> client : clients(node)) {
			if (clientName.equals(client.get("name"))) {
				String id = client.get("id");
				killed += withAdmin(node,
						(jedis) -> jedis.clientKill(new redis.clients.jedis.params.ClientKillParams().id(id)));
			}
		}
		return killed;
	}

	/**
	 * Returns the hash slot the server computes for a key ({@code CLUSTER KEYSLOT}).
	 * @param key the key
	 * @return the slot, 0..16383
	 */
	public int keySlot(byte[] key) {
		Object slot = withAdmin(runningNodes().get(0),
				(jedis) -> jedis.sendCommand(Protocol.Command.CLUSTER, "KEYSLOT".getBytes(), key));
		return ((Long) slot).intValue();
	}

	/**
	 * Returns the master that serves a key now, as {@code CLUSTER NODES} reports it.
	 * @param key the key
	 * @return the master owning the key's slot
	 */
	public RedisNode masterServing(String key) {
		return masterServingSlot(keySlot(key.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
	}

	/**
	 * Returns the master that serves a hash slot now, as {@code CLUSTER NODES} reports
	 * it.
	 * @param slot the slot
	 * @return the master owning the slot
	 */
	public RedisNode masterServingSlot(int slot) {
		for (String line : clusterNodes(runningNodes().get(0))) {
			String[] fields = line.split(" ");
			if (!fields[2].contains("master") || fields[2].contains("fail")) {
				continue;
			}
			for (int i = 8; i < fields.length; i++) {
				if (fields[i].startsWith("[")) {
					continue;
				}
				String[] range = fields[i].split("-");
				int first = Integer.parseInt(range[0]);
				int last = (range.length > 1) ? Integer.parseInt(range[1]) : first;
				if (slot >= first && slot <= last) {
					int port = realPort(
							Integer.parseInt(fields[1].substring(fields[1].indexOf(':') + 1).split("[@,]")[0]));
					return this.nodes.stream().filter((node) -> node.port() == port).findFirst().orElseThrow();
				}
			}
		}
		throw new IllegalStateException("No master serves slot " + slot);
	}

	/**
	 * Stops one node abruptly, as a crash would. Its admin connection is dropped.
	 * @param node the node to stop
	 */
	public void kill(RedisNode node) {
		synchronized (this.admins) {
			Jedis admin = this.admins.remove(node);
			if (admin != null) {
				admin.close();
			}
		}
		this.killed.add(node);
		this.launcher.kill(node.port());
	}

	/**
	 * Starts a node again after {@link #kill(RedisNode)}; it rejoins with its saved
	 * cluster state.
	 * @param node the node
	 */
	public void restart(RedisNode node) {
		this.launcher.restart(node.port());
		this.killed.remove(node);
	}

	/**
	 * Returns the replicas of a master, as the master itself reports them in
	 * {@code CLUSTER NODES} (which {@code INFO commandstats} counts: call it before
	 * {@link #resetStats()} in tests that count that command).
	 * @param master the master
	 * @return its replicas
	 */
	public List<RedisNode> replicasOf(RedisNode master) {
		List<String> lines = clusterNodes(master);
		String masterId = lines.stream()
			.filter((line) -> line.contains("myself"))
			.findFirst()
			.orElseThrow()
			.split(" ")[0];
		Set<Integer> ports = lines.stream()
			.map((line) -> line.split(" "))
			.filter((fields) -> fields[3].equals(masterId))
			.map((fields) -> realPort(
					Integer.parseInt(fields[1].substring(fields[1].lastIndexOf(':') + 1).split("[@,]")[0])))
			.collect(Collectors.toSet());
		return this.nodes.stream().filter((n) -> ports.contains(n.port())).toList();
	}

	/**
	 * Tells whether a node is a master now, from its own {@code INFO replication} (no
	 * {@code CLUSTER NODES}, so tests counting that command can poll it).
	 * @param node the node
	 * @return whether it reports {@code role:master}
	 */
	public boolean isMaster(RedisNode node) {
		return withAdmin(node, (jedis) -> jedis.info("replication")).contains("role:master");
	}

	/**
	 * Waits until every replica of a master has acknowledged the master's whole
	 * replication stream, so that a failover that follows loses no write (replication is
	 * asynchronous). Sends only {@code INFO replication}.
	 * @param master the master
	 * @param timeout how long to wait
	 */
	public void awaitReplicated(RedisNode master, Duration timeout) {
		await("the replicas of " + master + " to catch up", () -> {
			String info = withAdmin(master, (jedis) -> jedis.info("replication"));
			long offset = info.lines()
				.filter((line) -> line.startsWith("master_repl_offset:"))
				.mapToLong((line) -> Long.parseLong(line.substring(line.indexOf(':') + 1).trim()))
				.findFirst()
				.orElse(-1);
			List<String> replicas = info.lines().filter((line) -> line.matches("slave\\d+:.*")).toList();
			return !replicas.isEmpty() && replicas.stream().allMatch((line) -> {
				String field = line.substring(line.indexOf("offset=") + 7);
				return Long.parseLong(field.substring(0, field.indexOf(','))) >= offset;
			});
		}, () -> "", timeout);
	}

	/**
	 * Waits until every node's {@code CLUSTER NODES} shows a node as a master that is not
	 * failed: a failover (or a {@link #takeOver(RedisNode) takeover}) has reached the
	 * whole cluster. Sends {@code CLUSTER NODES} to every node: call it before
	 * {@link #resetStats()} in tests that count that command.
	 * @param node the node that should be master
	 */
	public void awaitSeenAsMasterByAll(RedisNode node) {
		String address = node.host() + ":" + node.port() + "@";
		await("every node to see " + node + " as master", () -> {
			for (RedisNode other : runningNodes()) {
				if (clusterNodes(other).stream()
					.noneMatch((line) -> line.contains(address) && line.contains("master") && !line.contains("fail"))) {
					return false;
				}
			}
			return true;
		}, () -> "", Duration.ofSeconds(20));
	}

	/**
	 * Fails a master over to one of its replicas gracefully, as an operator or an upgrade
	 * does: waits until the replica has the master's whole replication stream, sends
	 * {@code CLUSTER FAILOVER} to it, and returns once every node sees the replica as
	 * master and the cluster is healthy again (the old master follows the new one).
	 * @param master the master to fail over
	 * @return the new master
	 * @throws IllegalStateException when the master has no replica, or the failover does
	 * not complete in time
	 */
	public RedisNode failover(RedisNode master) {
		RedisNode replica = replicasToPromote(master).get(0);
		awaitReplicated(master, Duration.ofSeconds(10));
		withAdmin(replica, (jedis) -> jedis.sendCommand(Protocol.Command.CLUSTER, "FAILOVER"));
		awaitSeenAsMasterByAll(replica);
		awaitHealthy();
		return replica;
	}

	/**
	 * Kills a master abruptly, as a crash would, and returns once one of its replicas has
	 * been elected in its place and every running node sees the replica as master. The
	 * cluster counts the killed node as failed until it is
	 * {@link #restartAndAwaitHealthy(RedisNode) restarted}.
	 * @param master the master to kill
	 * @return the replica that took over
	 * @throws IllegalStateException when the master has no replica, or none takes over in
	 * time
	 */
	public RedisNode killMaster(RedisNode master) {
		List<RedisNode> replicas = replicasToPromote(master);
		awaitReplicated(master, Duration.ofSeconds(10));
		kill(master);
		await("a replica of the killed " + master + " to take over",
				() -> replicas.stream().anyMatch(this::isMasterNow), this::describeState, Duration.ofSeconds(30));
		RedisNode promoted = replicas.stream().filter(this::isMasterNow).findFirst().orElseThrow();
		awaitSeenAsMasterByAll(promoted);
		return promoted;
	}

	/**
	 * Starts a node again after {@link #kill(RedisNode)} or
	 * {@link #killMaster(RedisNode)} and returns once it has rejoined (a killed master
	 * comes back as a replica of the node that took over) and the cluster is healthy.
	 * @param node the killed node
	 */
	public void restartAndAwaitHealthy(RedisNode node) {
		restart(node);
		awaitHealthy();
	}

	/**
	 * Moves a hash slot and its keys to another master, as a resharding tool does
	 * ({@code CLUSTER SETSLOT IMPORTING} on the target, {@code MIGRATING} on the source,
	 * {@code MIGRATE} of every key, then {@code CLUSTER SETSLOT NODE} on the target, the
	 * source and the other masters), and returns once every running node agrees the
	 * target serves the slot.
	 * @param slot the slot, 0..16383
	 * @param target the master to move it to
	 */
	public void migrateSlot(int slot, RedisNode target) {
		RedisNode source = masterServingSlot(slot);
		if (source.equals(target)) {
			return;
		}
		String sourceId = withAdmin(source, Jedis::clusterMyId);
		String targetId = withAdmin(target, Jedis::clusterMyId);
		withAdmin(target, (jedis) -> jedis.clusterSetSlotImporting(slot, sourceId));
		withAdmin(source, (jedis) -> jedis.clusterSetSlotMigrating(slot, targetId));
		while (true) {
			List<String> keys = withAdmin(source, (jedis) -> jedis.clusterGetKeysInSlot(slot, 100));
			if (keys.isEmpty()) {
				break;
			}
			List<String> arguments = new ArrayList<>(
					List.of(meetIp(target), Integer.toString(target.port()), "", "0", "5000"));
			arguments.addAll(this.security.migrateAuthentication());
			arguments.add("KEYS");
			arguments.addAll(keys);
			withAdmin(source, (jedis) -> jedis.sendCommand(Protocol.Command.MIGRATE, arguments.toArray(new String[0])));
		}
		// The target first, so that no node redirects to a target that still only imports
		// the slot.
		List<RedisNode> order = new ArrayList<>(List.of(target, source));
		masters().stream().filter((master) -> !order.contains(master)).forEach(order::add);
		for (RedisNode master : order) {
			withAdmin(master, (jedis) -> jedis.clusterSetSlotNode(slot, targetId));
		}
		String address = target.host() + ":" + announcedPort(target) + "@";
		await("every node to see slot " + slot + " served by " + target,
				() -> runningNodes().stream()
					.allMatch((node) -> clusterNodes(node).stream()
						.filter((line) -> line.contains(address)
								|| line.contains(" " + meetIp(target) + ":" + announcedPort(target) + "@"))
						.anyMatch((line) -> servesSlot(line, slot))),
				this::describeState, Duration.ofSeconds(20));
	}

	static boolean servesSlot(String line, int slot) {
		String[] fields = line.split(" ");
		for (int i = 8; i < fields.length; i++) {
			if (fields[i].startsWith("[")) {
				continue;
			}
			String[] range = fields[i].split("-");
			int first = Integer.parseInt(range[0]);
			int last = (range.length > 1) ? Integer.parseInt(range[1]) : first;
			if (slot >= first && slot <= last) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Pauses one node's clients for a while ({@code CLIENT PAUSE}): their commands wait,
	 * their connections stay open, and the cluster bus goes on, so the cluster does not
	 * fail the node over; a slow or stalled node as clients see it. Returns at once; the
	 * node resumes by itself when the time is up.
	 * @param node the node
	 * @param duration how long it pauses
	 */
	public void pause(RedisNode node, Duration duration) {
		withAdmin(node, (jedis) -> jedis.clientPause(duration.toMillis()));
	}

	private List<RedisNode> replicasToPromote(RedisNode master) {
		List<RedisNode> replicas = replicasOf(master);
		if (replicas.isEmpty()) {
			throw new IllegalStateException(master + " has no replica to take over; start the cluster with "
					+ "replicasPerMaster of 1 or more");
		}
		return replicas;
	}

	private boolean isMasterNow(RedisNode node) {
		try {
			return isMaster(node);
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/**
	 * Makes a replica take over its master's slots at once, without the master's
	 * agreement or an election ({@code CLUSTER FAILOVER TAKEOVER}), as an operator does
	 * when the cluster's own failover is too slow or impossible.
	 * @param replica the replica to promote
	 */
	public void takeOver(RedisNode replica) {
		withAdmin(replica, (jedis) -> jedis.sendCommand(Protocol.Command.CLUSTER, "FAILOVER", "TAKEOVER"));
	}

	/**
	 * Returns the nodes not stopped with {@link #kill(RedisNode)}. Deliberately sends no
	 * command: a liveness PING would show up in the very statistics tests read.
	 */
	private List<RedisNode> runningNodes() {
		return this.nodes.stream().filter((node) -> !this.killed.contains(node)).toList();
	}

	/**
	 * Returns the cluster's shape.
	 * @return the shape it was started with
	 */
	public ClusterShape shape() {
		return this.shape;
	}

	@Override
	public void close() {
		stopProcesses();
		try {
			Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
		}
		catch (IllegalStateException ex) {
			// The JVM is already shutting down; the hook is running or has run.
		}
	}

	private void stopProcesses() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		synchronized (this.admins) {
			this.admins.values().forEach(Jedis::close);
			this.admins.clear();
		}
		this.launcher.close();
		this.ports.close();
	}

	private static void await(String what, BooleanSupplier condition, Supplier<String> state) {
		await(what, condition, state, FORMATION_TIMEOUT);
	}

	private static void await(String what, BooleanSupplier condition, Supplier<String> state, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Timed out after " + timeout.toSeconds() + "s waiting for " + what
						+ "; cluster as the nodes see it:" + state.get());
			}
			try {
				TimeUnit.MILLISECONDS.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for " + what, ex);
			}
		}
	}

	@Override
	public String toString() {
		return "RedisTestCluster" + this.shape + " on " + nodesProperty();
	}

}
