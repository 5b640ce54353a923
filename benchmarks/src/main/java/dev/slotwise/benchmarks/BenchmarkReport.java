package dev.slotwise.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * Turns a JMH JSON result file into a Markdown table with each row's speed-up against a
 * baseline variant of the same benchmark: for throughput {@code score / baseline}, for
 * time modes {@code baseline / score}, so above 1 always means faster than the baseline.
 * Also prints the median of single-shot and sample-time results.
 * <p>
 * {@code java -cp benchmarks/target/benchmarks.jar dev.slotwise.benchmarks.BenchmarkReport results.json param=value}
 */
public final class BenchmarkReport {

	private BenchmarkReport() {
	}

	/**
	 * Prints the table.
	 * @param args the JSON file, then the baseline as {@code param=value}
	 * @throws IOException when the file cannot be read
	 */
	public static void main(String[] args) throws IOException {
		if (args.length != 2 || !args[1].contains("=")) {
			System.err.println("Usage: BenchmarkReport <jmh-result.json> <param>=<baseline value>");
			System.exit(2);
		}
		String baselineParam = args[1].substring(0, args[1].indexOf('='));
		String baselineValue = args[1].substring(args[1].indexOf('=') + 1);
		JsonArray runs = JsonParser.parseString(Files.readString(Path.of(args[0]))).getAsJsonArray();
		List<Row> rows = new ArrayList<>();
		for (JsonElement element : runs) {
			rows.add(Row.of(element.getAsJsonObject()));
		}
		System.out.println(
				"| benchmark | params | mode | score | error (99.9%) | median | unit | vs " + baselineValue + " |");
		System.out.println("|---|---|---|---|---|---|---|---|");
		for (Row row : rows) {
			Row baseline = rows.stream()
				.filter((other) -> other.benchmark.equals(row.benchmark) && other.mode.equals(row.mode))
				.filter((other) -> baselineValue.equals(other.params.get(baselineParam)))
				.filter((other) -> sameExcept(other.params, row.params, baselineParam))
				.findFirst()
				.orElse(null);
			String ratio = "";
			if (baseline != null && baseline.score > 0 && row.score > 0) {
				double speedup = row.mode.equals("thrpt") ? row.score / baseline.score : baseline.score / row.score;
				ratio = String.format("%.2fx", speedup);
			}
			System.out.printf("| %s | %s | %s | %.3f | %.3f | %s | %s | %s |%n", row.benchmark, row.params, row.mode,
					row.score, row.error, Double.isNaN(row.median) ? "" : String.format("%.3f", row.median), row.unit,
					ratio);
		}
	}

	private static boolean sameExcept(Map<String, String> a, Map<String, String> b, String ignored) {
		Map<String, String> left = new LinkedHashMap<>(a);
		Map<String, String> right = new LinkedHashMap<>(b);
		left.remove(ignored);
		right.remove(ignored);
		return Objects.equals(left, right);
	}

	private record Row(String benchmark, Map<String, String> params, String mode, double score, double error,
			double median, String unit) {

		static Row of(JsonObject run) {
			String name = run.get("benchmark").getAsString();
			Map<String, String> params = new LinkedHashMap<>();
			if (run.has("params")) {
				run.getAsJsonObject("params")
					.entrySet()
					.forEach((e) -> params.put(e.getKey(), e.getValue().getAsString()));
			}
			JsonObject metric = run.getAsJsonObject("primaryMetric");
			double error = metric.get("scoreError").isJsonPrimitive() ? parse(metric.get("scoreError")) : Double.NaN;
			double median = metric.has("scorePercentiles")
					? parse(metric.getAsJsonObject("scorePercentiles").get("50.0")) : Double.NaN;
			return new Row(name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1), params,
					run.get("mode").getAsString(), parse(metric.get("score")), error, median,
					metric.get("scoreUnit").getAsString());
		}

		private static double parse(JsonElement element) {
			try {
				return element.getAsDouble();
			}
			catch (RuntimeException ex) {
				return Double.NaN;
			}
		}

	}

}
