package dev.slotwise.test.jvm;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs a main class in a JVM of its own, for tests that need a class path or JVM flags
 * the test run cannot have (an application without Micrometer, BlockHound's
 * instrumentation), and returns what it printed once it ended.
 */
public final class ForkedJvm {

	private ForkedJvm() {
	}

	/**
	 * Runs a main class and waits up to two minutes for it to end.
	 * @param classPath the class path, as {@code java -cp} takes it
	 * @param jvmOptions options before the class path
	 * @param mainClass the class
	 * @param arguments its arguments
	 * @return its exit value and output (standard output and error)
	 */
	public static Result run(String classPath, List<String> jvmOptions, Class<?> mainClass, String... arguments)
			throws IOException, InterruptedException {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(jvmOptions);
		command.add("-cp");
		command.add(classPath);
		command.add(mainClass.getName());
		command.addAll(List.of(arguments));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		byte[] output;
		try {
			output = process.getInputStream().readAllBytes();
			assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("%s to end", mainClass.getSimpleName()).isTrue();
		}
		finally {
			process.destroyForcibly();
		}
		return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
	}

	/**
	 * The test run's own class path.
	 * @return the entries
	 */
	public static List<String> testClassPath() {
		return List.of(System.getProperty("java.class.path").split(File.pathSeparator));
	}

	/**
	 * What a forked JVM did.
	 *
	 * @param exitValue its exit value
	 * @param output what it printed
	 */
	public record Result(int exitValue, String output) {
	}

}
