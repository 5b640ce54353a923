package dev.slotwise.test.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Starts test clusters' nodes over and over while another thread opens and closes
 * outgoing loopback connections all the time, as a browser, an IDE or another build
 * beside the tests does. Every outgoing connection takes a local port from the ephemeral
 * range; a node whose client or bus port lay there could lose it between the choice and
 * {@code redis-server}'s bind (issue 30: {@code AclUserClusterIntegrationTests} lost bus
 * port 39702 that way).
 */
class ClusterStartUnderConnectionFloodIntegrationTests {

	/** Node starts of a 3-node cluster: 600 nodes, 1,200 ports bound. */
	private static final int NODE_STARTS = 200;

	/**
	 * Full starts, formation included, of a 3 x 0 shape: each takes a few seconds on two
	 * busy cores.
	 */
	private static final int CLUSTER_STARTS = 10;

	/**
	 * Outgoing connections the flood holds open at once, a few percent of the ephemeral
	 * range.
	 */
	private static final int HELD_CONNECTIONS = 1_000;

	@Test
	void everyNodeBindsItsPortsWhileOutgoingConnectionsChurn() throws Exception {
		String executable = LocalProcessLauncher.findExecutable().orElseThrow();
		List<String> failures = new ArrayList<>();
		try (ConnectionFlood flood = ConnectionFlood.start(HELD_CONNECTIONS)) {
			for (int i = 0; i < NODE_STARTS; i++) {
				try (LoopbackPorts ports = LoopbackPorts.claim();
						LocalProcessLauncher launcher = new LocalProcessLauncher(executable)) {
					for (LoopbackPorts.NodePorts node : RedisTestCluster.startNodes(launcher, ports, 3)) {
						assertOutsideEphemeralRange(node.client());
						assertOutsideEphemeralRange(node.bus());
					}
				}
				catch (IllegalStateException ex) {
					failures.add("start " + i + ": " + ex.getMessage());
				}
			}
			long opened = flood.stop();
			System.out.printf("%d starts of 3 nodes, %d failed; %d outgoing connections, %d from the ephemeral range%n",
					NODE_STARTS, failures.size(), opened, flood.portsInEphemeralRange());
			assertThat(opened).isGreaterThan(10_000);
			assertThat(flood.portsInEphemeralRange()).isEqualTo(flood.opened());
		}
		assertThat(failures).isEmpty();
	}

	@Test
	void everyClusterFormsWhileOutgoingConnectionsChurn() throws Exception {
		List<String> failures = new ArrayList<>();
		try (ConnectionFlood flood = ConnectionFlood.start(HELD_CONNECTIONS)) {
			for (int i = 0; i < CLUSTER_STARTS; i++) {
				try (RedisTestCluster cluster = RedisTestCluster.start(new ClusterShape(3, 0))) {
					for (RedisNode node : cluster.nodes()) {
						assertOutsideEphemeralRange(node.port());
						assertOutsideEphemeralRange(cluster.busPort(node));
					}
				}
				catch (IllegalStateException ex) {
					failures.add("start " + i + ": " + ex.getMessage());
				}
			}
			assertThat(flood.stop()).isGreaterThan(1_000);
		}
		assertThat(failures).isEmpty();
	}

	@Test
	void aNodeWhoseBusPortWasTakenAfterTheChoiceStartsOnOtherPorts() throws Exception {
		String executable = LocalProcessLauncher.findExecutable().orElseThrow();
		List<ServerSocket> thieves = new ArrayList<>();
		try (LoopbackPorts ports = LoopbackPorts.claim();
				LocalProcessLauncher real = new LocalProcessLauncher(executable);
				NodeLauncher stealing = new StealingLauncher(real, thieves)) {
			List<LoopbackPorts.NodePorts> started = RedisTestCluster.startNodes(stealing, ports, 3);
			assertThat(thieves).hasSize(1);
			int stolen = thieves.get(0).getLocalPort();
			assertThat(started).hasSize(3).noneMatch((node) -> node.bus() == stolen || node.client() == stolen);
			for (LoopbackPorts.NodePorts node : started) {
				try (Socket socket = new Socket()) {
					socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), node.client()), 1_000);
				}
			}
		}
		finally {
			for (ServerSocket thief : thieves) {
				thief.close();
			}
		}
	}

	/**
	 * Binds the first node's bus port just before the first start, as a process beside
	 * the tests could.
	 */
	private record StealingLauncher(NodeLauncher delegate, List<ServerSocket> thieves) implements NodeLauncher {

		@Override
		public void start(List<LoopbackPorts.NodePorts> ports) {
			if (this.thieves.isEmpty()) {
				try {
					ServerSocket thief = new ServerSocket();
					thief.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), ports.get(0).bus()));
					this.thieves.add(thief);
				}
				catch (IOException ex) {
					throw new IllegalStateException(ex);
				}
			}
			this.delegate.start(ports);
		}

		@Override
		public void kill(int port) {
			this.delegate.kill(port);
		}

		@Override
		public void restart(int port) {
			this.delegate.restart(port);
		}

		@Override
		public void close() {
		}

		@Override
		public String describe() {
			return this.delegate.describe();
		}

	}

	private static void assertOutsideEphemeralRange(int port) {
		int[] ephemeral = LoopbackPorts.ephemeralRange();
		assertThat(port).isNotEqualTo(6379)
			.satisfiesAnyOf((p) -> assertThat(p).isLessThan(ephemeral[0]),
					(p) -> assertThat(p).isGreaterThan(ephemeral[1]));
	}

	/**
	 * Keeps a number of outgoing loopback connections open, closing the oldest and
	 * opening a new one all the time; closes with a reset (linger 0) so that no port
	 * stays in {@code TIME_WAIT} on the machine.
	 */
	private static final class ConnectionFlood implements AutoCloseable {

		private final ServerSocket server;

		private final Thread acceptor;

		private final Thread opener;

		private final AtomicBoolean running = new AtomicBoolean(true);

		private final AtomicLong opened = new AtomicLong();

		private final AtomicLong inEphemeralRange = new AtomicLong();

		private ConnectionFlood(int held) throws IOException {
			this.server = new ServerSocket();
			this.server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), LoopbackPorts.freePort()), 1024);
			this.acceptor = new Thread(this::accept, "connection-flood-acceptor");
			this.opener = new Thread(() -> open(held), "connection-flood-opener");
			this.acceptor.setDaemon(true);
			this.opener.setDaemon(true);
			this.acceptor.start();
			this.opener.start();
		}

		static ConnectionFlood start(int held) throws IOException {
			return new ConnectionFlood(held);
		}

		private void accept() {
			Deque<Socket> accepted = new ArrayDeque<>();
			while (this.running.get()) {
				try {
					accepted.add(this.server.accept());
					if (accepted.size() > 2_000) {
						accepted.poll().close();
					}
				}
				catch (IOException ex) {
					// Closed at the end, or a reset connection: go on.
				}
			}
			accepted.forEach(ConnectionFlood::closeQuietly);
		}

		private void open(int held) {
			int[] ephemeral = LoopbackPorts.ephemeralRange();
			Deque<Socket> open = new ArrayDeque<>();
			while (this.running.get()) {
				try {
					Socket socket = new Socket();
					socket.setSoLinger(true, 0);
					socket.connect(this.server.getLocalSocketAddress(), 1_000);
					open.add(socket);
					long count = this.opened.incrementAndGet();
					if (socket.getLocalPort() >= ephemeral[0] && socket.getLocalPort() <= ephemeral[1]) {
						this.inEphemeralRange.incrementAndGet();
					}
					if (open.size() > held) {
						closeQuietly(open.poll());
					}
					if (count % 5 == 0) {
						// About 5,000 a second at most: a busy desktop, without taking a
						// core from the build.
						Thread.sleep(1);
					}
				}
				catch (IOException ex) {
					// The backlog may be full for a moment: try again.
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					break;
				}
			}
			open.forEach(ConnectionFlood::closeQuietly);
		}

		long opened() {
			return this.opened.get();
		}

		long portsInEphemeralRange() {
			return this.inEphemeralRange.get();
		}

		/**
		 * Stops the flood.
		 * @return the number of connections it opened
		 */
		long stop() throws InterruptedException {
			this.running.set(false);
			closeQuietly(this.server);
			this.opener.join(10_000);
			this.acceptor.join(10_000);
			return this.opened.get();
		}

		@Override
		public void close() throws InterruptedException {
			stop();
		}

		private static void closeQuietly(AutoCloseable closeable) {
			try {
				closeable.close();
			}
			catch (Exception ex) {
				// Closing is best effort.
			}
		}

	}

}
