package dev.slotwise.test.cluster;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Runs each node as a child {@code redis-server} process of this JVM, in a private
 * directory under the system temporary directory. The directory records the owning JVM's
 * pid and every node's pid, so that a later run can stop the processes of a JVM that died
 * without running its shutdown hooks ({@code kill -9}), and nothing else.
 */
final class LocalProcessLauncher implements NodeLauncher {

	/**
	 * What redis-server logs once it listens on every port, the cluster bus's included.
	 */
	private static final String READY = "Ready to accept connections";

	private static final String DIRECTORY_PREFIX = "slotwise-redis-";

	private static final AtomicInteger SEQUENCE = new AtomicInteger();

	private final String executable;

	private final Path directory;

	private final Map<Integer, Process> processes = new ConcurrentHashMap<>();

	/**
	 * The size of each node's log when it was last launched: what it wrote since tells
	 * whether it started.
	 */
	private final Map<Integer, Long> logStarts = new ConcurrentHashMap<>();

	/** The cluster bus port of each node, by client port, for restarts. */
	private final Map<Integer, Integer> busPorts = new ConcurrentHashMap<>();

	private volatile Function<Integer, List<String>> extraArguments;

	LocalProcessLauncher(String executable) {
		this(executable, List.of());
	}

	/**
	 * @param executable the {@code redis-server} to run
	 * @param extraArguments more configuration for every node, e.g.
	 * {@code --cluster-announce-hostname localhost}
	 */
	LocalProcessLauncher(String executable, List<String> extraArguments) {
		this(executable, constant(extraArguments));
	}

	/**
	 * @param executable the {@code redis-server} to run
	 * @param extraArguments more configuration for each node, by port, e.g. a
	 * {@code --cluster-announce-port}
	 */
	LocalProcessLauncher(String executable, Function<Integer, List<String>> extraArguments) {
		this.executable = executable;
		this.extraArguments = extraArguments;
		reapOrphans();
		try {
			this.directory = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"),
					DIRECTORY_PREFIX + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet()));
			Files.writeString(this.directory.resolve("owner.pid"), Long.toString(ProcessHandle.current().pid()));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a directory for the test cluster", ex);
		}
	}

	/**
	 * Finds the {@code redis-server} executable: {@code SLOTWISE_REDIS_SERVER}, then the
	 * {@code PATH}, then the usual install locations.
	 * @return the executable, if any
	 */
	static Optional<String> findExecutable() {
		String configured = System.getenv("SLOTWISE_REDIS_SERVER");
		if (configured != null && !configured.isBlank()) {
			if (!Files.isExecutable(Path.of(configured))) {
				throw new IllegalStateException("SLOTWISE_REDIS_SERVER=" + configured + " is not an executable file");
			}
			return Optional.of(configured);
		}
		List<Path> candidates = new ArrayList<>();
		String path = System.getenv("PATH");
		if (path != null) {
			for (String dir : path.split(File.pathSeparator)) {
				candidates.add(Path.of(dir, "redis-server"));
			}
		}
		candidates.add(Path.of("/usr/bin/redis-server"));
		candidates.add(Path.of("/usr/local/bin/redis-server"));
		return candidates.stream().filter(Files::isExecutable).map(Path::toString).findFirst();
	}

	@Override
	public void start(List<LoopbackPorts.NodePorts> ports) {
		for (LoopbackPorts.NodePorts node : ports) {
			this.busPorts.put(node.client(), node.bus());
			launch(node.client());
		}
		List<Integer> taken = new ArrayList<>();
		List<String> logs = new ArrayList<>();
		for (LoopbackPorts.NodePorts node : ports) {
			try {
				awaitAccepting(node.client());
			}
			catch (PortsTakenException ex) {
				this.processes.remove(node.client());
				this.busPorts.remove(node.client());
				taken.add(node.client());
				logs.add(ex.detail());
			}
		}
		if (!taken.isEmpty()) {
			throw new PortsTakenException(taken, String.join("; ", logs));
		}
	}

	@Override
	public void reconfigure(List<String> extraArguments) {
		this.extraArguments = constant(extraArguments);
	}

	private static Function<Integer, List<String>> constant(List<String> arguments) {
		List<String> copy = List.copyOf(arguments);
		return (port) -> copy;
	}

	@Override
	public void awaitStopped(int port, Duration timeout) {
		Process process = this.processes.get(port);
		if (process == null) {
			throw new IllegalStateException("No running node on port " + port);
		}
		if (!awaitExit(process, timeout)) {
			throw new IllegalStateException("redis-server on port " + port + " did not exit within " + timeout);
		}
		this.processes.remove(port);
	}

	@Override
	public void kill(int port) {
		Process process = this.processes.remove(port);
		if (process == null) {
			throw new IllegalStateException("No running node on port " + port);
		}
		process.destroyForcibly();
		awaitExit(process, Duration.ofSeconds(10));
	}

	@Override
	public void restart(int port) {
		if (this.processes.containsKey(port)) {
			throw new IllegalStateException("Node on port " + port + " is still running");
		}
		launch(port);
		awaitAccepting(port);
	}

	@Override
	public void close() {
		this.processes.values().forEach(Process::destroy);
		this.processes.values().forEach((process) -> {
			if (!awaitExit(process, Duration.ofSeconds(5))) {
				process.destroyForcibly();
				awaitExit(process, Duration.ofSeconds(5));
			}
		});
		this.processes.clear();
		deleteRecursively(this.directory);
	}

	@Override
	public String describe() {
		return "local redis-server processes (" + this.executable + ") in " + this.directory;
	}

	private void launch(int port) {
		Path nodeDirectory = this.directory.resolve(Integer.toString(port));
		try {
			Files.createDirectories(nodeDirectory);
			Path log = nodeDirectory.resolve("redis.log");
			this.logStarts.put(port, Files.exists(log) ? Files.size(log) : 0L);
			List<String> command = new ArrayList<>(List.of(this.executable, "--port", Integer.toString(port), "--bind",
					"127.0.0.1", "--cluster-enabled", "yes", "--cluster-port", Integer.toString(busPort(port)),
					"--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "1500", "--dir",
					nodeDirectory.toString(), "--save", "", "--appendonly", "no", "--protected-mode", "no",
					"--daemonize", "no", "--logfile", "redis.log"));
			command.addAll(this.extraArguments.apply(port));
			ProcessBuilder builder = new ProcessBuilder(command);
			builder.redirectErrorStream(true);
			builder.redirectOutput(nodeDirectory.resolve("stdout.log").toFile());
			Process process = builder.start();
			this.processes.put(port, process);
			Files.writeString(this.directory.resolve("pids"), process.pid() + System.lineSeparator(),
					StandardOpenOption.CREATE, StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + this.executable + " on port " + port, ex);
		}
	}

	private int busPort(int port) {
		Integer bus = this.busPorts.get(port);
		if (bus == null) {
			throw new IllegalStateException("No cluster bus port was chosen for the node on port " + port);
		}
		return bus;
	}

	private void awaitAccepting(int port) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		Process process = this.processes.get(port);
		while (System.nanoTime() < deadline) {
			if (process != null && !process.isAlive()) {
				String log = readLog(port);
				if (log.contains("Address already in use")) {
					throw new PortsTakenException(List.of(port),
							log.lines()
								.filter((line) -> line.contains("Address already in use"))
								.findFirst()
								.orElse(log));
				}
				throw new IllegalStateException(
						"redis-server on port " + port + " exited with code " + process.exitValue() + ": " + log);
			}
			// The client port accepts as soon as it listens, before the server binds its
			// cluster bus port and before it could fail to: only the server's own "ready"
			// line, written after both, says it started.
			if (readySinceLaunch(port)) {
				try (Socket socket = new Socket()) {
					socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
					return;
				}
				catch (IOException ex) {
					// Not accepting yet.
				}
			}
			sleep(20);
		}
		throw new IllegalStateException(
				"redis-server on port " + port + " did not accept connections within 20s: " + readLog(port));
	}

	/**
	 * Whether the node's log says, since its last launch, that it is ready to accept
	 * connections.
	 */
	private boolean readySinceLaunch(int port) {
		Path log = this.directory.resolve(Integer.toString(port)).resolve("redis.log");
		long from = this.logStarts.getOrDefault(port, 0L);
		try {
			if (!Files.exists(log) || Files.size(log) <= from) {
				return false;
			}
			byte[] bytes = Files.readAllBytes(log);
			String since = new String(bytes, (int) Math.min(from, bytes.length),
					(int) (bytes.length - Math.min(from, bytes.length)), StandardCharsets.UTF_8);
			return since.contains(READY);
		}
		catch (IOException ex) {
			return false;
		}
	}

	private String readLog(int port) {
		Path log = this.directory.resolve(Integer.toString(port)).resolve("redis.log");
		try {
			List<String> lines = Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
			return String.join(System.lineSeparator(), lines.subList(Math.max(0, lines.size() - 15), lines.size()));
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	private static boolean awaitExit(Process process, Duration timeout) {
		try {
			return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * Stops nodes left behind by test JVMs that are gone, recognised by their directory's
	 * {@code owner.pid}.
	 */
	private static void reapOrphans() {
		Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
		try (Stream<Path> entries = Files.list(tmp)) {
			entries.filter((entry) -> entry.getFileName().toString().startsWith(DIRECTORY_PREFIX))
				.filter(LocalProcessLauncher::ownerIsGone)
				.forEach((orphan) -> {
					killRecordedProcesses(orphan);
					deleteRecursively(orphan);
				});
		}
		catch (IOException ex) {
			// Best effort: an unreadable temporary directory only means orphans stay.
		}
	}

	private static boolean ownerIsGone(Path directory) {
		try {
			long owner = Long.parseLong(Files.readString(directory.resolve("owner.pid")).trim());
			return ProcessHandle.of(owner).map((handle) -> !handle.isAlive()).orElse(true);
		}
		catch (IOException | NumberFormatException ex) {
			return false;
		}
	}

	private static void killRecordedProcesses(Path directory) {
		try {
			for (String line : Files.readAllLines(directory.resolve("pids"))) {
				ProcessHandle.of(Long.parseLong(line.trim()))
					.filter((handle) -> handle.info().command().map((c) -> c.contains("redis-server")).orElse(false))
					.ifPresent(ProcessHandle::destroyForcibly);
			}
		}
		catch (IOException | NumberFormatException ex) {
			// Nothing recorded, nothing to stop.
		}
	}

	private static void deleteRecursively(Path directory) {
		if (!Files.exists(directory)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(directory)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// Leaving a temporary directory behind is harmless.
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for redis-server", ex);
		}
	}

}
