package dev.slotwise.test.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Hands out loopback ports for test servers that no other process can take between the
 * choice and the bind.
 * <p>
 * Two things take a port a test server was about to bind. Outgoing connections of any
 * process take a local port from the machine's ephemeral range
 * ({@code /proc/sys/net/ipv4/ip_local_port_range} on Linux): no port handed out here lies
 * in it, so no connect can take one. Other test JVMs choose ports too: the ports are
 * handed out from blocks of {@value #BLOCK_SIZE}, and a JVM holds an exclusive file lock
 * on a block's lock file ({@code slotwise-ports-<first port>.lock} in the temporary
 * directory) for as long as it uses the block. The operating system releases the lock
 * when the JVM exits, however it exits, so a block is never lost. A port is also checked
 * with a bind before it is handed out, for servers that are not tests (port 6379 is never
 * in a block).
 * <p>
 * Ports of a Redis Cluster node come in pairs: the client port and the cluster bus port,
 * which the node is told explicitly ({@code cluster-port}) instead of the default client
 * port + 10000.
 */
public final class LoopbackPorts implements AutoCloseable {

	/**
	 * Ports per block: a 3 x 1 cluster uses 12, the rest serves added nodes and binds
	 * that failed.
	 */
	static final int BLOCK_SIZE = 32;

	/**
	 * The lowest port handed out, above the ports servers commonly use (6379, 7000-7005,
	 * 8080, 9092, ...).
	 */
	private static final int LOWEST = 20_000;

	private static final int HIGHEST = 65_535;

	/**
	 * The ephemeral range assumed where the kernel does not say: IANA's dynamic ports
	 * (macOS, Windows).
	 */
	private static final int[] IANA_DYNAMIC = { 49_152, 65_535 };

	private static final Path RANGE_FILE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

	/**
	 * Blocks locked by any instance in this JVM: a second lock of the same file in one
	 * JVM would fail anyway.
	 */
	private static final Set<Integer> LOCKED_IN_THIS_JVM = ConcurrentHashMap.newKeySet();

	private static volatile LoopbackPorts shared;

	private final List<Block> blocks = new ArrayList<>();

	private final Set<Integer> handedOut = new HashSet<>();

	private LoopbackPorts() {
	}

	/**
	 * Starts a new set of ports, released with {@link #close()}; blocks are claimed as
	 * ports are asked for.
	 * @return the set, holding no block yet
	 */
	static LoopbackPorts claim() {
		return new LoopbackPorts();
	}

	/**
	 * Returns a loopback port outside the ephemeral range that no other test JVM uses and
	 * nothing listens on now, reserved for this JVM until it exits.
	 * @return the port
	 */
	public static int freePort() {
		LoopbackPorts ports = shared;
		if (ports == null) {
			synchronized (LoopbackPorts.class) {
				ports = shared;
				if (ports == null) {
					ports = new LoopbackPorts();
					shared = ports;
				}
			}
		}
		return ports.next();
	}

	/**
	 * Returns the machine's ephemeral port range, where outgoing connections take their
	 * local port.
	 * @return the first and last port of the range
	 */
	public static int[] ephemeralRange() {
		if (Files.isReadable(RANGE_FILE)) {
			// Not Files.readString: it trusts the size /proc reports and returned "3" for
			// "32768 60999" on JDK 17.
			try (InputStream in = Files.newInputStream(RANGE_FILE)) {
				String[] bounds = new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim().split("\\s+");
				return new int[] { Integer.parseInt(bounds[0]), Integer.parseInt(bounds[1]) };
			}
			catch (IOException | RuntimeException ex) {
				// Unreadable: assume the common default below.
			}
		}
		return IANA_DYNAMIC.clone();
	}

	/**
	 * Returns the first port of every block that lies outside the ephemeral range.
	 * @param ephemeral the first and last port of the ephemeral range
	 * @return the block starts, ascending
	 */
	static List<Integer> blockStarts(int[] ephemeral) {
		List<Integer> starts = new ArrayList<>();
		for (int start = LOWEST; start + BLOCK_SIZE - 1 <= HIGHEST; start += BLOCK_SIZE) {
			int last = start + BLOCK_SIZE - 1;
			boolean overlapsEphemeral = start <= ephemeral[1] && last >= ephemeral[0];
			if (!overlapsEphemeral) {
				starts.add(start);
			}
		}
		return starts;
	}

	/**
	 * Returns a port that is free now and was not handed out before by this set, claiming
	 * another block when the ones held are used up.
	 * @return the port
	 */
	synchronized int next() {
		while (true) {
			for (Block block : this.blocks) {
				for (int port = block.start(); port < block.start() + BLOCK_SIZE; port++) {
					if (!this.handedOut.contains(port) && isFree(port)) {
						this.handedOut.add(port);
						return port;
					}
				}
			}
			this.blocks.add(claimBlock());
		}
	}

	/**
	 * Returns a client port and a cluster bus port for one node.
	 * @return the pair
	 */
	synchronized NodePorts nextNode() {
		return new NodePorts(next(), next());
	}

	/** Releases every block this set holds, for other JVMs to use. */
	@Override
	public synchronized void close() {
		for (Block block : this.blocks) {
			block.release();
		}
		this.blocks.clear();
	}

	private static Block claimBlock() {
		int[] ephemeral = ephemeralRange();
		List<Integer> starts = blockStarts(ephemeral);
		if (starts.isEmpty()) {
			throw new IllegalStateException("No port from " + LOWEST + " to " + HIGHEST + " lies outside the ephemeral "
					+ "range " + ephemeral[0] + "-" + ephemeral[1] + " (" + RANGE_FILE + "): test servers there could "
					+ "lose their port to any outgoing connection");
		}
		Path directory = lockDirectory();
		int offset = ThreadLocalRandom.current().nextInt(starts.size());
		for (int i = 0; i < starts.size(); i++) {
			int start = starts.get((offset + i) % starts.size());
			if (!LOCKED_IN_THIS_JVM.add(start)) {
				continue;
			}
			Block block = tryLock(directory, start);
			if (block != null) {
				return block;
			}
			LOCKED_IN_THIS_JVM.remove(start);
		}
		throw new IllegalStateException("Every block of " + BLOCK_SIZE + " ports outside the ephemeral range "
				+ ephemeral[0] + "-" + ephemeral[1] + " is held by a test JVM (lock files in " + directory + ")");
	}

	/**
	 * Tells whether no JVM holds a block now, by taking and releasing its lock.
	 * @param start the block's first port
	 * @return whether the block could be locked
	 */
	static boolean isUnclaimed(int start) {
		if (LOCKED_IN_THIS_JVM.contains(start)) {
			return false;
		}
		Block block = tryLock(lockDirectory(), start);
		if (block == null) {
			return false;
		}
		closeQuietly(block.channel());
		return true;
	}

	/**
	 * Returns the first port of the block a port belongs to.
	 * @param port the port
	 * @return the block's first port
	 */
	static int blockOf(int port) {
		return LOWEST + (port - LOWEST) / BLOCK_SIZE * BLOCK_SIZE;
	}

	private static Block tryLock(Path directory, int start) {
		FileChannel channel = null;
		try {
			channel = FileChannel.open(directory.resolve("slotwise-ports-" + start + ".lock"),
					StandardOpenOption.CREATE, StandardOpenOption.WRITE);
			FileLock lock = channel.tryLock();
			if (lock != null) {
				return new Block(start, channel);
			}
		}
		catch (IOException | OverlappingFileLockException ex) {
			// Held elsewhere or not lockable: try the next block.
		}
		closeQuietly(channel);
		return null;
	}

	private static Path lockDirectory() {
		Path directory = Path.of(System.getProperty("java.io.tmpdir"), "slotwise-ports");
		try {
			return Files.createDirectories(directory);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create the port lock directory " + directory, ex);
		}
	}

	private static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket()) {
			socket.setReuseAddress(true);
			socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static void closeQuietly(FileChannel channel) {
		if (channel != null) {
			try {
				channel.close();
			}
			catch (IOException ex) {
				// Closing releases the lock; nothing else to do.
			}
		}
	}

	/**
	 * A block of ports and the open lock file that claims it; closing the channel
	 * releases the lock.
	 */
	private record Block(int start, FileChannel channel) {

		void release() {
			closeQuietly(this.channel);
			LOCKED_IN_THIS_JVM.remove(this.start);
		}

	}

	/**
	 * The two ports of a Redis Cluster node.
	 *
	 * @param client the port clients connect to
	 * @param bus the cluster bus port ({@code cluster-port})
	 */
	record NodePorts(int client, int bus) {

	}

}
