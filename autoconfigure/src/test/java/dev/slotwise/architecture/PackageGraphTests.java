package dev.slotwise.architecture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shape of the main code, read from its sources: the package graph has no cycle
 * (issue 27 found one of four packages), no main class is over 600 lines and no package
 * over 3,000 (the properties holder, one JavaBean per property group, aside in both).
 */
class PackageGraphTests {

	private static final Path MAIN = Path.of("src/main/java");

	private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);

	private static final Pattern IMPORT = Pattern.compile("^import (?:static )?(dev\\.slotwise\\.[a-z0-9.]+)\\.[A-Z]",
			Pattern.MULTILINE);

	@Test
	void packagesDependOnEachOtherWithoutCycles() throws IOException {
		Map<String, Set<String>> graph = new TreeMap<>();
		for (Source source : sources()) {
			Set<String> targets = graph.computeIfAbsent(source.pkg(), (key) -> new TreeSet<>());
			Matcher imports = IMPORT.matcher(source.text());
			while (imports.find()) {
				if (!imports.group(1).equals(source.pkg())) {
					targets.add(imports.group(1));
				}
			}
		}
		assertThat(graph).as("packages read").hasSizeGreaterThan(10);
		assertThat(cycles(graph)).as("package cycles").isEmpty();
	}

	@Test
	void noClassOver600LinesAndNoPackageOver3000() throws IOException {
		Map<String, Integer> packageLines = new TreeMap<>();
		List<String> largeClasses = new ArrayList<>();
		for (Source source : sources()) {
			if (source.path().endsWith("SlotwiseProperties.java")) {
				continue;
			}
			int lines = (int) source.text().lines().count();
			packageLines.merge(source.pkg(), lines, Integer::sum);
			if (lines > 600) {
				largeClasses.add(source.path() + " (" + lines + " lines)");
			}
		}
		assertThat(largeClasses).as("main classes over 600 lines").isEmpty();
		assertThat(packageLines).as("lines per package")
			.allSatisfy((pkg, lines) -> assertThat(lines).as(pkg).isLessThanOrEqualTo(3000));
	}

	/**
	 * The strongly connected components of more than one package (Tarjan's algorithm).
	 */
	private static List<Set<String>> cycles(Map<String, Set<String>> graph) {
		Map<String, Integer> index = new HashMap<>();
		Map<String, Integer> low = new HashMap<>();
		List<String> stack = new ArrayList<>();
		Set<String> onStack = new HashSet<>();
		List<Set<String>> cycles = new ArrayList<>();
		for (String node : graph.keySet()) {
			if (!index.containsKey(node)) {
				connect(node, graph, index, low, stack, onStack, cycles);
			}
		}
		return cycles;
	}

	private static void connect(String node, Map<String, Set<String>> graph, Map<String, Integer> index,
			Map<String, Integer> low, List<String> stack, Set<String> onStack, List<Set<String>> cycles) {
		index.put(node, index.size());
		low.put(node, index.get(node));
		stack.add(node);
		onStack.add(node);
		for (String next : graph.getOrDefault(node, Set.of())) {
			if (!index.containsKey(next)) {
				connect(next, graph, index, low, stack, onStack, cycles);
				low.put(node, Math.min(low.get(node), low.get(next)));
			}
			else if (onStack.contains(next)) {
				low.put(node, Math.min(low.get(node), index.get(next)));
			}
		}
		if (low.get(node).equals(index.get(node))) {
			Set<String> component = new TreeSet<>();
			String member;
			do {
				member = stack.remove(stack.size() - 1);
				onStack.remove(member);
				component.add(member);
			}
			while (!member.equals(node));
			if (component.size() > 1) {
				cycles.add(component);
			}
		}
	}

	private static List<Source> sources() throws IOException {
		List<Source> sources = new ArrayList<>();
		try (Stream<Path> files = Files.walk(MAIN)) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".java")).toList()) {
				String text = Files.readString(file);
				Matcher pkg = PACKAGE.matcher(text);
				if (pkg.find()) {
					sources.add(new Source(MAIN.relativize(file).toString(), pkg.group(1), text));
				}
			}
		}
		return sources;
	}

	private record Source(String path, String pkg, String text) {
	}

}
