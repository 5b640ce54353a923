package dev.slotwise.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import org.springframework.boot.json.JsonParserFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The documented properties table ({@code docs/properties.md}, linked from the README)
 * matches the configuration metadata the build generates, name for name and default for
 * default; the pool defaults in {@code docs/pools.md} are the ones Slotwise applies; and
 * the changelog ({@code docs/changelog.md}) names every property the metadata marks as
 * removed.
 */
class ReadmePropertiesTests {

	private static final Path DOCS = Path.of("..", "docs");

	private static final Pattern ROW = Pattern.compile("^\\| `([a-z0-9.*-]+)` \\| ([^|]*) \\|", Pattern.MULTILINE);

	@Test
	void propertiesTableMatchesTheMetadata() throws IOException {
		Map<String, String> documented = documentedProperties(doc("properties.md"));
		Map<String, String> generated = new LinkedHashMap<>();
		for (Map<String, Object> property : metadataProperties()) {
			if (!property.containsKey("deprecation")) {
				Object defaultValue = property.get("defaultValue");
				// Computed defaults (e.g. per processor) have none in the metadata: the
				// table describes them.
				generated.put((String) property.get("name"),
						(defaultValue != null) ? "`" + format(defaultValue) + "`" : null);
			}
		}
		assertThat(documented.keySet()).containsExactlyInAnyOrderElementsOf(generated.keySet());
		generated.forEach((name, defaultValue) -> {
			String cell = documented.get(name);
			if (defaultValue != null) {
				assertThat(cell).as("default of %s", name).isEqualTo(defaultValue);
			}
			else {
				assertThat(cell).as("default of %s, computed at start-up and described in words", name)
					.doesNotContain("`")
					.isNotBlank();
			}
		});
	}

	@Test
	void poolDefaultsSlotwiseSuppliesForSpringBootPropertiesAreTheDocumentedOnes() throws IOException {
		String section = doc("pools.md");
		Map<String, String> documented = new LinkedHashMap<>();
		Matcher row = ROW.matcher(section);
		while (row.find()) {
			documented.put(row.group(1), row.group(2).strip());
		}
		String boot = "spring.data.redis.*.pool.";
		assertThat(documented).containsEntry(boot + "min-idle", Integer.toString(ClientPoolProperties.DEFAULT_MIN_IDLE))
			.containsEntry(boot + "max-wait", ClientPoolProperties.DEFAULT_MAX_WAIT.toSeconds() + "s")
			.containsEntry(boot + "time-between-eviction-runs",
					ClientPoolProperties.DEFAULT_TIME_BETWEEN_EVICTION_RUNS.toSeconds() + "s");
	}

	@Test
	void changelogNamesEveryRemovedProperty() throws IOException {
		String changelog = doc("changelog.md");
		List<String> removed = metadataProperties().stream()
			.filter((property) -> property.containsKey("deprecation"))
			.map((property) -> (String) property.get("name"))
			.toList();
		assertThat(removed).isNotEmpty().allSatisfy((name) -> assertThat(changelog).contains("`" + name + "`"));
	}

	private static String format(Object value) {
		// JSON numbers may come back as doubles; the metadata only holds whole numbers.
		if (value instanceof Number number && number.doubleValue() == Math.rint(number.doubleValue())) {
			return Long.toString(number.longValue());
		}
		return value.toString();
	}

	private static String doc(String name) throws IOException {
		return Files.readString(DOCS.resolve(name), StandardCharsets.UTF_8);
	}

	private static Map<String, String> documentedProperties(String section) {
		Map<String, String> documented = new LinkedHashMap<>();
		Matcher row = ROW.matcher(section);
		while (row.find()) {
			String previous = documented.put(row.group(1), row.group(2).strip());
			assertThat(previous).as("rows of %s in docs/properties.md", row.group(1)).isNull();
		}
		return documented;
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> metadataProperties() throws IOException {
		try (InputStream metadata = ReadmePropertiesTests.class
			.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(metadata).as("generated configuration metadata").isNotNull();
			Map<String, Object> json = JsonParserFactory.getJsonParser()
				.parseMap(new String(metadata.readAllBytes(), StandardCharsets.UTF_8));
			return (List<Map<String, Object>>) json.get("properties");
		}
	}

}
