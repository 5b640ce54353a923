package dev.slotwise.samples;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import dev.slotwise.internal.routing.SlotHash;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.SpringApplicationAotProcessor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample in JVM AOT mode, as a native image would run it minus the native
 * compilation: Spring AOT processes the application
 * ({@link SpringApplicationAotProcessor}, what spring-boot-maven-plugin's
 * {@code process-aot} goal runs), the generated sources are compiled, and the application
 * is started in its own JVM with {@code -Dspring.aot.enabled=true} on them. It must serve
 * a cross-slot {@code multiGet} through Slotwise (one {@code MGET} per slot on the
 * servers, no per-key {@code GET}: plain Spring Data Redis sends one {@code GET} per key
 * across slots on both clients), and the native-image metadata the processing wrote must
 * carry Slotwise's hints. The same run with {@code slotwise.enabled=false} (processed
 * with it, as AOT fixes conditions at build time) serves the same products with one
 * {@code GET} per key.
 */
@WithRedisCluster
class SampleAotModeIntegrationTests {

	private static final String MAIN = SlotwiseSampleApplication.class.getName();

	private static final Pattern TOMCAT_PORT = Pattern.compile("Tomcat started on port (\\d+)");

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	@ParameterizedTest(name = "{0}, slotwise.enabled={1}")
	@CsvSource({ "jedis, true", "lettuce, true", "jedis, false" })
	void startsAndServesACrossSlotMultiGetInAotMode(String client, boolean slotwise, RedisTestCluster cluster,
			@TempDir Path work) throws Exception {
		String classPath = applicationClassPath();
		List<String> appArgs = List.of("--spring.data.redis.cluster.nodes=" + cluster.nodesProperty(),
				"--spring.data.redis.client-type=" + client, "--sample.products=300", "--slotwise.enabled=" + slotwise);
		Path sources = work.resolve("sources");
		Path resources = work.resolve("resources");
		Path classes = work.resolve("classes");

		List<String> process = new ArrayList<>(List.of(java(), "-cp", classPath,
				SpringApplicationAotProcessor.class.getName(), MAIN, sources.toString(), resources.toString(),
				classes.toString(), "dev.slotwise", "slotwise-samples"));
		process.addAll(appArgs);
		Path processLog = work.resolve("process-aot.log");
		Process processor = new ProcessBuilder(process).redirectErrorStream(true)
			.redirectOutput(processLog.toFile())
			.start();
		assertThat(processor.waitFor(3, TimeUnit.MINUTES)).as("AOT processing finished").isTrue();
		assertThat(processor.exitValue()).as("AOT processing: %s", tail(processLog)).isZero();

		// Slotwise's registrar reached the metadata a native build would use.
		String metadata = readAll(resources, ".json");
		assertThat(metadata).contains("io.lettuce.core.protocol.DefaultEndpoint")
			.contains("redis.clients.jedis.UnifiedJedis")
			.contains("org.springframework.data.redis.connection.RedisStringCommands");

		compile(sources, classes, classPath);
		assertThat(
				classes.resolve("dev/slotwise/samples/SlotwiseSampleApplication__ApplicationContextInitializer.class"))
			.exists();

		List<String> run = new ArrayList<>(List.of(java(), "-Dspring.aot.enabled=true", "-cp",
				classes + File.pathSeparator + resources + File.pathSeparator + classPath, MAIN, "--server.port=0"));
		run.addAll(appArgs);
		Path runLog = work.resolve("run.log");
		Process app = new ProcessBuilder(run).redirectErrorStream(true).redirectOutput(runLog.toFile()).start();
		try {
			String base = awaitUp(app, runLog);
			assertThat(Files.readString(runLog)).as("started AOT-processed").contains("AOT-processed");
			assertThat(send(base, "POST", "/products/load?count=300")).contains("\"products\":300");

			cluster.resetStats();
			String ids = IntStream.range(0, 300).mapToObj(Integer::toString).collect(Collectors.joining(","));
			String products = send(base, "GET", "/products?ids=" + ids);
			assertThat(products).startsWith("[\"{\\\"id\\\":0,").contains("{\\\"id\\\":299,");
			if (slotwise) {
				assertThat(cluster.totalCommandCalls("get")).isZero();
				assertThat(cluster.totalCommandCalls("mget")).isEqualTo(slotsOf(300));
			}
			else {
				// Plain Boot in AOT mode: same answer, one GET per key.
				assertThat(cluster.totalCommandCalls("get")).isEqualTo(300);
				assertThat(cluster.totalCommandCalls("mget")).isZero();
			}
		}
		finally {
			app.destroy();
			if (!app.waitFor(30, TimeUnit.SECONDS)) {
				app.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
	}

	/** The application's class path: the test JVM's, without the test classes. */
	private static String applicationClassPath() {
		return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter((entry) -> !entry.endsWith("test-classes"))
			.collect(Collectors.joining(File.pathSeparator));
	}

	private static String java() {
		return Path.of(System.getProperty("java.home"), "bin", "java").toString();
	}

	private static void compile(Path sources, Path classes, String classPath) throws IOException {
		List<String> files;
		try (Stream<Path> walk = Files.walk(sources)) {
			files = walk.filter((file) -> file.toString().endsWith(".java")).map(Path::toString).toList();
		}
		assertThat(files).isNotEmpty();
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		List<String> args = new ArrayList<>(List.of("-proc:none", "-parameters", "-nowarn", "-cp",
				classes + File.pathSeparator + classPath, "-d", classes.toString()));
		args.addAll(files);
		assertThat(compiler.run(null, null, null, args.toArray(new String[0]))).as("javac of the generated sources")
			.isZero();
	}

	private static String readAll(Path root, String suffix) throws IOException {
		StringBuilder all = new StringBuilder();
		try (Stream<Path> walk = Files.walk(root)) {
			for (Path file : walk.filter((file) -> file.toString().endsWith(suffix)).toList()) {
				all.append(Files.readString(file));
			}
		}
		return all.toString();
	}

	/**
	 * Waits for the port Tomcat logs (the application picks a free one) and a healthy
	 * application.
	 */
	private String awaitUp(Process app, Path log) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
		String base = null;
		while (System.nanoTime() < deadline) {
			assertThat(app.isAlive()).as("the application exited: %s", tail(log)).isTrue();
			if (base == null) {
				Matcher port = TOMCAT_PORT.matcher(Files.readString(log));
				if (port.find()) {
					base = "http://127.0.0.1:" + port.group(1);
				}
				Thread.sleep(250);
				continue;
			}
			try {
				HttpResponse<String> response = this.http.send(
						HttpRequest.newBuilder(URI.create(base + "/actuator/health")).GET().build(),
						HttpResponse.BodyHandlers.ofString());
				if (response.statusCode() == 200) {
					return base;
				}
			}
			catch (IOException ex) {
				// Not listening yet.
			}
			Thread.sleep(250);
		}
		throw new AssertionError("The application did not come up: " + tail(log));
	}

	private String send(String base, String method, String path) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build();
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as("%s %s: %s", method, path, response.body()).isEqualTo(200);
		return response.body();
	}

	private static String tail(Path log) throws IOException {
		List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
		return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
	}

	private static int slotsOf(int products) {
		Set<Integer> slots = new HashSet<>();
		for (int id = 0; id < products; id++) {
			slots.add(SlotHash.slot(("product:" + id).getBytes(StandardCharsets.UTF_8)));
		}
		return slots.size();
	}

}
