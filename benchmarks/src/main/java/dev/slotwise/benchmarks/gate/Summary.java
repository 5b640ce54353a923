package dev.slotwise.benchmarks.gate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * Writes a run folder's {@code summary.md} and charts from its JMH JSON files and
 * {@code machine.json}, and prints a short table:
 * {@code java -cp benchmarks.jar dev.slotwise.benchmarks.gate.Summary <run folder>}.
 */
public final class Summary {

	private Summary() {
	}

	/**
	 * Summarizes a run folder.
	 * @param args the folder
	 * @throws IOException when the folder cannot be read or written
	 */
	public static void main(String[] args) throws IOException {
		if (args.length != 1 || !Files.isDirectory(Path.of(args[0]))) {
			System.err.println("Usage: Summary <run folder written by benchmarks/run.sh>");
			System.exit(2);
		}
		Path folder = Path.of(args[0]);
		Map<String, List<Row>> families = families(folder);
		String markdown = markdown(folder, families);
		Files.writeString(folder.resolve("summary.md"), markdown);
		List<Path> charts = Charts.write(folder, families);
		System.out.println();
		System.out.print(shortTable(families));
		System.out.println();
		System.out.println("Summary: " + folder.resolve("summary.md") + "; charts: "
				+ charts.stream().map((p) -> p.getFileName().toString()).toList());
	}

	/**
	 * The rows of every JMH JSON file in the folder, by family (file name without
	 * {@code .json}).
	 * @param folder the run folder
	 * @return the families in file-name order
	 * @throws IOException when the folder cannot be listed
	 */
	static Map<String, List<Row>> families(Path folder) throws IOException {
		Map<String, List<Row>> families = new LinkedHashMap<>();
		List<Path> files;
		try (Stream<Path> list = Files.list(folder)) {
			files = list.filter((p) -> p.getFileName().toString().endsWith(".json"))
				.filter((p) -> !p.getFileName().toString().equals("machine.json"))
				.sorted()
				.toList();
		}
		for (Path file : files) {
			String name = file.getFileName().toString().replaceFirst("\\.json$", "");
			try {
				families.put(name, new ArrayList<>(ResultFiles.read(file).values()));
			}
			catch (BadInputException ex) {
				// A family whose every trial failed leaves an empty file; say so and go
				// on with the others.
				families.put(name, List.of());
			}
		}
		return families;
	}

	static String markdown(Path folder, Map<String, List<Row>> families) throws IOException {
		StringBuilder md = new StringBuilder();
		md.append("# Benchmark run ").append(folder.getFileName()).append("\n\n");
		machine(folder).ifPresent((m) -> md.append(machineLine(m)).append("\n\n"));
		md.append("Value: the median per call in sample mode, otherwise JMH's score. ± is the 95% interval from the ")
			.append("measurement iterations (Student's t); JMH's own 99.9% error is beside it. Spread: the ")
			.append("iterations' relative standard deviation (the gate calls a row unstable above ")
			.append(Math.round(Compare.DEFAULT_UNSTABLE * 100))
			.append("%). vs baseline: the speed relative to the in-run baseline (above 1: faster), ± its 95% ")
			.append("interval. Compare runs with `benchmarks/compare.sh`.\n");
		for (Map.Entry<String, List<Row>> family : families.entrySet()) {
			List<Row> rows = family.getValue();
			md.append("\n## ").append(family.getKey()).append("\n\n");
			if (rows.isEmpty()) {
				md.append("No result: every trial failed (see `logs/").append(family.getKey()).append(".log`).\n");
				continue;
			}
			Row first = rows.get(0);
			md.append('`')
				.append(first.shortName())
				.append("`, mode ")
				.append(first.mode())
				.append(", baseline ")
				.append(Baselines.describe(first))
				.append("\n\n");
			md.append("| params | value | ± 95% | JMH error (99.9%) | spread | unit | vs baseline |\n");
			md.append("|---|---|---|---|---|---|---|\n");
			// A class of several benchmark methods (NearCacheBenchmark): each row names
			// its method.
			boolean methods = rows.stream().map(Row::benchmark).distinct().count() > 1;
			for (Row row : rows) {
				Estimate speed = Estimate.speedOf(row);
				String label = methods ? row.shortName().substring(row.className().length() + 1) + ": " + params(row)
						: params(row);
				md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s |%n", label,
						Compare.Report.number(row.value()), percent(speed.relativeHalfWidth()),
						Double.isNaN(row.jmhError()) ? "" : Compare.Report.number(row.jmhError()),
						percent(row.relativeSpread()), row.unit(), ratio(row, rows)));
			}
		}
		clientPaths(md, families.values().stream().flatMap(List::stream).toList());
		return md.toString();
	}

	private static void clientPaths(StringBuilder md, List<Row> run) {
		ClientPaths.Rows rows = ClientPaths.of(run);
		if (rows.pairs().isEmpty() && rows.skipped().isEmpty()) {
			return;
		}
		md.append("\n## Lettuce path ÷ Jedis path\n\n")
			.append("Slotwise over Lettuce's time ÷ Slotwise over Jedis's time, same run, ± its 95% interval. ")
			.append("Issue #27: ")
			.append(ClientPaths.limitText())
			.append("; `compare.sh` fails a run above it beyond the interval, or whose row there rose against ")
			.append("the baseline run's beyond the threshold and the interval.\n\n");
		if (!rows.pairs().isEmpty()) {
			md.append("| benchmark | Lettuce ÷ Jedis | ± 95% | limit |\n|---|---|---|---|\n");
			for (ClientPaths.Pair pair : rows.pairs()) {
				Estimate ratio = pair.timeRatio();
				md.append(String.format(Locale.ROOT, "| %s | %.2fx | %s | %s |%n", pair.name(), ratio.value(),
						percent(ratio.relativeHalfWidth()),
						pair.limit(Compare.DEFAULT_UNSTABLE)
							.map((v) -> String.format(Locale.ROOT, "%.2fx: %s", ClientPaths.LIMIT, v.label()))
							.orElse("")));
			}
		}
		for (String skipped : rows.skipped()) {
			md.append("\nSkipped: ").append(skipped).append('\n');
		}
	}

	static String shortTable(Map<String, List<Row>> families) {
		StringBuilder out = new StringBuilder();
		out.append(String.format(Locale.ROOT, "%-30s %-52s %14s %-8s %s%n", "family", "params", "value", "unit",
				"vs baseline (95%)"));
		for (Map.Entry<String, List<Row>> family : families.entrySet()) {
			if (family.getValue().isEmpty()) {
				out.append(String.format(Locale.ROOT, "%-30s (no result: see logs/%s.log)%n", family.getKey(),
						family.getKey()));
			}
			boolean methods = family.getValue().stream().map(Row::benchmark).distinct().count() > 1;
			for (Row row : family.getValue()) {
				String label = methods ? row.shortName().substring(row.className().length() + 1) + ": " + params(row)
						: params(row);
				out.append(String.format(Locale.ROOT, "%-30s %-52s %14s %-8s %s%n", family.getKey(), label,
						Compare.Report.number(row.value()), row.unit(), ratio(row, family.getValue())));
			}
		}
		return out.toString();
	}

	private static String params(Row row) {
		String params = row.params().toString();
		return params.substring(1, params.length() - 1);
	}

	private static String ratio(Row row, List<Row> run) {
		if (Baselines.isBaseline(row)) {
			return "baseline";
		}
		return Baselines.ratio(row, run)
			.map((r) -> String.format(Locale.ROOT, "%.2fx ± %s", r.value(), percent(r.relativeHalfWidth())))
			.orElse("");
	}

	private static String percent(double relative) {
		return Double.isFinite(relative) ? String.format(Locale.ROOT, "%.1f%%", relative * 100) : "?";
	}

	/**
	 * Reads a run folder's {@code machine.json}.
	 * @param folder the run folder
	 * @return its contents, empty when it has none or it is not a JSON object
	 * @throws IOException when it exists but cannot be read
	 */
	static Optional<JsonObject> machine(Path folder) throws IOException {
		Path file = folder.resolve("machine.json");
		if (!Files.exists(file)) {
			return Optional.empty();
		}
		try {
			return Optional.of(JsonParser.parseString(Files.readString(file)).getAsJsonObject());
		}
		catch (RuntimeException ex) {
			return Optional.empty();
		}
	}

	private static String machineLine(JsonObject m) {
		return String.format(
				"Machine: %s cores (%s), %s; %s; JVM %s; %s. Commit `%s`%s. Date %s, %s s; load "
						+ "average %s at the start, %s at the end.",
				text(m, "cores"), text(m, "cpu"), text(m, "memory"), text(m, "os"), text(m, "jvm").trim(),
				text(m, "redis"), text(m, "git_commit"),
				"true".equals(text(m, "git_dirty")) ? " with uncommitted changes" : "", text(m, "date"),
				text(m, "seconds"), text(m, "load_average_start"), text(m, "load_average_end"));
	}

	private static String text(JsonObject object, String name) {
		return object.has(name) ? object.get(name).getAsString() : "?";
	}

}
