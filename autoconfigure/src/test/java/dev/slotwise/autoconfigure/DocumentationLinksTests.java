package dev.slotwise.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link of the README, {@code docs/} and the sample's README resolves: the
 * file exists, and an anchor names a heading of the file it points to (as GitHub derives
 * anchors from headings). The README is the front page and the reference lives in
 * {@code docs/}; a section moved or renamed must not leave a dead link behind.
 */
class DocumentationLinksTests {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	/**
	 * {@code [text](target)} and {@code ![alt](target)}; the target ends at whitespace or
	 * ')'.
	 */
	private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

	private static final Pattern HEADING = Pattern.compile("^#{1,6} (.+)$", Pattern.MULTILINE);

	@Test
	void relativeLinksResolve() throws IOException {
		List<String> broken = new ArrayList<>();
		for (Path document : documents()) {
			Matcher link = LINK.matcher(prose(Files.readString(document, StandardCharsets.UTF_8), true));
			while (link.find()) {
				String target = link.group(1);
				if (target.matches("^[a-zA-Z][a-zA-Z+.-]*:.*")) {
					continue; // https:, mailto: ...
				}
				String path = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
				String anchor = target.contains("#") ? target.substring(target.indexOf('#') + 1) : null;
				Path resolved = path.isEmpty() ? document : document.getParent().resolve(path).normalize();
				String where = ROOT.relativize(document) + ": " + target;
				if (!Files.exists(resolved)) {
					broken.add(where + " (no such file)");
				}
				else if (anchor != null && !anchors(resolved).contains(anchor)) {
					broken.add(where + " (no such heading)");
				}
			}
		}
		assertThat(broken).as("broken relative links").isEmpty();
	}

	private static List<Path> documents() throws IOException {
		List<Path> documents = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("samples/README.md")));
		try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(documents::add);
		}
		return documents;
	}

	/**
	 * The text without fenced code blocks (and, optionally, inline code), where brackets
	 * are not links.
	 */
	private static String prose(String markdown, boolean withoutInlineCode) {
		StringBuilder prose = new StringBuilder();
		boolean fenced = false;
		for (String line : markdown.split("\n", -1)) {
			if (line.startsWith("```")) {
				fenced = !fenced;
				continue;
			}
			if (!fenced) {
				prose.append(withoutInlineCode ? line.replaceAll("`[^`]*`", "``") : line).append('\n');
			}
		}
		return prose.toString();
	}

	private static Set<String> anchors(Path document) {
		if (!document.toString().endsWith(".md") || Files.isDirectory(document)) {
			return Set.of();
		}
		try {
			Set<String> anchors = new HashSet<>();
			Matcher heading = HEADING.matcher(prose(Files.readString(document, StandardCharsets.UTF_8), false));
			while (heading.find()) {
				String slug = slug(heading.group(1));
				String anchor = slug;
				for (int n = 1; !anchors.add(anchor); n++) {
					anchor = slug + "-" + n; // GitHub numbers repeated headings
				}
			}
			return anchors;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * GitHub's anchor for a heading: lower case, punctuation dropped (inline code markers
	 * too), spaces to '-'.
	 */
	private static String slug(String heading) {
		return heading.strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\s_-]", "").replace(' ', '-');
	}

}
