package dev.slotwise.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.slotwise.benchmarks.gate.Baselines;
import dev.slotwise.benchmarks.gate.Estimate;
import dev.slotwise.benchmarks.gate.ResultFiles;
import dev.slotwise.benchmarks.gate.Row;

/**
 * The cluster-size sweep's tables (Markdown) from a run folder: {@code cluster-size.json}
 * (JMH, {@link ClusterSizeBenchmark}), {@code cluster-size-cpu.csv} and
 * {@code cluster-size-topology.csv}. Latency ratios are to the ideal of the same size in
 * the same run, with their 95% interval from the iterations of both rows.
 * <p>
 * {@code java -cp benchmarks.jar dev.slotwise.benchmarks.ScaleReport <run folder>}
 */
public final class ScaleReport {

	private ScaleReport() {
	}

	public static void main(String[] args) throws IOException {
		if (args.length != 1) {
			System.err.println("Usage: ScaleReport <run folder with cluster-size.json>");
			System.exit(2);
		}
		System.out.print(markdown(Path.of(args[0])));
	}

	static String markdown(Path folder) throws IOException {
		Path json = folder.resolve("cluster-size.json");
		List<Row> rows = new ArrayList<>(ResultFiles.read(json).values());
		Map<String, Double> p99 = new HashMap<>();
		for (JsonElement run : JsonParser.parseString(Files.readString(json)).getAsJsonArray()) {
			JsonObject object = run.getAsJsonObject();
			JsonObject params = object.getAsJsonObject("params");
			JsonObject percentiles = object.getAsJsonObject("primaryMetric").getAsJsonObject("scorePercentiles");
			p99.put(params.get("masters").getAsString() + "/" + params.get("target").getAsString(),
					percentiles.get("99.0").getAsDouble());
		}
		Map<String, String[]> cpu = csv(folder.resolve("cluster-size-cpu.csv"), 0, 1);
		StringBuilder md = new StringBuilder();
		md.append(
				"| masters | target | p50 µs | p99 µs | p50 ÷ ideal (95%) | application CPU µs per call | CPU ÷ ideal "
						+ "| servers' CPU µs per call | values checked / wrong |\n|---|---|---|---|---|---|---|---|---|\n");
		TreeMap<Integer, List<Row>> bySize = new TreeMap<>();
		for (Row row : rows) {
			bySize.computeIfAbsent(Integer.parseInt(row.params().get("masters")), (m) -> new ArrayList<>()).add(row);
		}
		for (Map.Entry<Integer, List<Row>> size : bySize.entrySet()) {
			String[] idealCpu = cpu.get(size.getKey() + "/ideal");
			for (Row row : size.getValue()) {
				String target = row.params().get("target");
				String key = size.getKey() + "/" + target;
				String ratio = Baselines.ratio(row, rows)
					.map((speed) -> String.format(Locale.ROOT, "%.2f× ± %.0f%%", 1 / speed.value(),
							speed.relativeHalfWidth() * 100))
					.orElse("1 (baseline)");
				String[] c = cpu.get(key);
				md.append(String.format(Locale.ROOT, "| %d | %s | %,.0f | %,.0f | %s | %s | %s | %s | %s |%n",
						size.getKey(), target, row.value(), p99.getOrDefault(key, Double.NaN), ratio,
						(c != null) ? c[4] : "",
						(c != null && idealCpu != null) ? String.format(Locale.ROOT, "%.2f×",
								Double.parseDouble(c[4]) / Double.parseDouble(idealCpu[4])) : "",
						(c != null) ? c[5] : "", (c != null) ? c[6] + " / " + c[7] : ""));
			}
		}
		if (bySize.size() > 1) {
			int smallest = bySize.firstKey();
			int largest = bySize.lastKey();
			md.append("\nGrowth from ")
				.append(smallest)
				.append(" to ")
				.append(largest)
				.append(" masters (p50 at ")
				.append(largest)
				.append(" ÷ p50 at ")
				.append(smallest)
				.append(", 95%; CPU per call likewise):\n\n| target | p50 growth | CPU growth |\n|---|---|---|\n");
			for (Row large : bySize.get(largest)) {
				String target = large.params().get("target");
				Optional<Row> small = bySize.get(smallest)
					.stream()
					.filter((r) -> target.equals(r.params().get("target")))
					.findFirst();
				if (small.isEmpty()) {
					continue;
				}
				Estimate growth = Estimate.speedOf(small.get()).divide(Estimate.speedOf(large));
				String[] cpuSmall = cpu.get(smallest + "/" + target);
				String[] cpuLarge = cpu.get(largest + "/" + target);
				md.append(
						String.format(Locale.ROOT, "| %s | %.2f× ± %.0f%% | %s |%n", target, growth.value(),
								growth.relativeHalfWidth() * 100,
								(cpuSmall != null && cpuLarge != null)
										? String.format(Locale.ROOT, "%.2f×",
												Double.parseDouble(cpuLarge[4]) / Double.parseDouble(cpuSmall[4]))
										: ""));
			}
		}
		Path topology = folder.resolve("cluster-size-topology.csv");
		if (Files.exists(topology)) {
			Map<String, String[]> cost = csv(topology, 0, 1);
			md.append(
					"\nServer cost of one topology query (`usec_per_call`, INFO commandstats, 200 calls on one master; "
							+ "reply payload bytes):\n\n| masters | CLUSTER NODES | CLUSTER SLOTS | CLUSTER SHARDS |\n"
							+ "|---|---|---|---|\n");
			for (int masters : bySize.keySet()) {
				md.append("| ").append(masters);
				for (String command : List.of("NODES", "SLOTS", "SHARDS")) {
					String[] c = cost.get(masters + "/CLUSTER " + command);
					md.append(" | ").append((c != null) ? c[2] + " µs, " + c[3] + " B" : "");
				}
				md.append(" |\n");
			}
		}
		return md.toString();
	}

	/**
	 * A CSV with a header, keyed by two of its columns joined with '/'; a later line with
	 * the same key wins.
	 */
	private static Map<String, String[]> csv(Path file, int first, int second) throws IOException {
		Map<String, String[]> lines = new LinkedHashMap<>();
		if (!Files.exists(file)) {
			return lines;
		}
		List<String> all = Files.readAllLines(file);
		for (String line : all.subList(1, all.size())) {
			if (line.isBlank() || line.startsWith("masters,")) {
				continue;
			}
			String[] fields = line.split(",");
			lines.put(fields[first] + "/" + fields[second], fields);
		}
		return lines;
	}

}
