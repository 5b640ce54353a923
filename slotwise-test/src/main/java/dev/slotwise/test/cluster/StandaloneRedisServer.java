package dev.slotwise.test.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * One {@code redis-server} that is not part of a cluster, on a free loopback port (never
 * 6379), for tests of what happens when the application is pointed at something that is
 * not the cluster it expects. {@link #close()} stops exactly the process it started.
 */
public final class StandaloneRedisServer implements AutoCloseable {

	private final Process process;

	private final int port;

	private final Path directory;

	private final String password;

	private StandaloneRedisServer(Process process, int port, Path directory, String password) {
		this.process = process;
		this.port = port;
		this.directory = directory;
		this.password = password;
	}

	/**
	 * Starts a server with cluster mode off.
	 * @param password the password it requires ({@code requirepass}), or {@code null} for
	 * none
	 * @return the running server, accepting connections
	 */
	public static StandaloneRedisServer start(String password) {
		String executable = LocalProcessLauncher.findExecutable()
			.orElseThrow(() -> new IllegalStateException("redis-server is not installed"));
		int port = freePort();
		try {
			Path directory = Files.createTempDirectory("slotwise-standalone-");
			List<String> command = new ArrayList<>(List.of(executable, "--port", Integer.toString(port), "--bind",
					"127.0.0.1", "--dir", directory.toString(), "--save", "", "--appendonly", "no", "--protected-mode",
					"no", "--daemonize", "no", "--logfile", "redis.log"));
			if (password != null) {
				command.add("--requirepass");
				command.add(password);
			}
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(directory.resolve("stdout.log").toFile())
				.start();
			StandaloneRedisServer server = new StandaloneRedisServer(process, port, directory, password);
			Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
			server.awaitAccepting();
			return server;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + executable, ex);
		}
	}

	/**
	 * Returns the server's address in Spring Boot's {@code host:port} form.
	 * @return the address
	 */
	public String address() {
		return "127.0.0.1:" + this.port;
	}

	/**
	 * Returns how many connections the server has accepted since it started
	 * ({@code total_connections_received} of {@code INFO stats}), not counting the one
	 * this call opens.
	 * @return the number of connections received
	 */
	public long connectionsReceived() {
		DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
			.clientName(RedisTestCluster.ADMIN_CLIENT_NAME);
		if (this.password != null) {
			config.password(this.password);
		}
		try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", this.port), config.build())) {
			return jedis.info("stats")
				.lines()
				.filter((line) -> line.startsWith("total_connections_received:"))
				.mapToLong((line) -> Long.parseLong(line.substring(line.indexOf(':') + 1).trim()))
				.findFirst()
				.orElseThrow() - 1;
		}
	}

	@Override
	public void close() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(5, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		try (Stream<Path> paths = Files.walk(this.directory)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// A temporary directory left behind is harmless.
		}
	}

	private void awaitAccepting() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("redis-server on port " + this.port + " exited");
			}
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress("127.0.0.1", this.port), 200);
				return;
			}
			catch (IOException ex) {
				try {
					Thread.sleep(20);
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(interrupted);
				}
			}
		}
		throw new IllegalStateException("redis-server on port " + this.port + " did not accept connections");
	}

	/**
	 * Returns a loopback port nothing listens on now, outside the ephemeral range and
	 * reserved for this JVM (never 6379); for a server, or for an address that must
	 * refuse.
	 * @return the port
	 * @see LoopbackPorts#freePort()
	 */
	public static int freePort() {
		return LoopbackPorts.freePort();
	}

}
