package dev.slotwise.benchmarks.gate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.DoubleStream;

/**
 * Writes synthetic JMH JSON result files shaped like JMH 1.37's, for the gate's tests.
 */
final class Jmh {

	private final List<String> runs = new ArrayList<>();

	/**
	 * Adds a throughput or average-time result whose score is the mean of the iterations.
	 */
	Jmh add(String benchmark, String mode, Map<String, String> params, double... iterations) {
		double score = DoubleStream.of(iterations).average().orElseThrow();
		String raw = DoubleStream.of(iterations).mapToObj(Jmh::number).collect(Collectors.joining(", "));
		this.runs.add(run(benchmark, mode, params, score, mode.equals("thrpt") ? "ops/s" : "us/op",
				"\"rawData\": [[" + raw + "]]"));
		return this;
	}

	/**
	 * Adds a sample-mode result: each iteration a histogram of three buckets around its
	 * median.
	 */
	Jmh addSample(String benchmark, Map<String, String> params, double... iterationMedians) {
		String histograms = DoubleStream.of(iterationMedians)
			.mapToObj((m) -> "[[" + number(m * 0.9) + ", 10], [" + number(m) + ", 30], [" + number(m * 2) + ", 10]]")
			.collect(Collectors.joining(", "));
		double median = DoubleStream.of(iterationMedians).sorted().toArray()[iterationMedians.length / 2];
		this.runs.add(run(benchmark, "sample", params, median * 1.2, "us/op", "\"scorePercentiles\": {\"50.0\": "
				+ number(median) + "}, \"rawDataHistogram\": [[" + histograms + "]]"));
		return this;
	}

	Path write(Path file) throws IOException {
		Files.writeString(file, "[\n" + String.join(",\n", this.runs) + "\n]\n");
		return file;
	}

	private static String run(String benchmark, String mode, Map<String, String> params, double score, String unit,
			String data) {
		String paramJson = params.entrySet()
			.stream()
			.map((e) -> "\"" + e.getKey() + "\": \"" + e.getValue() + "\"")
			.collect(Collectors.joining(", "));
		return "{\"jmhVersion\": \"1.37\", \"benchmark\": \"dev.slotwise.benchmarks." + benchmark + "\", \"mode\": \""
				+ mode + "\", \"threads\": 1, \"forks\": 1, \"params\": {" + paramJson + "}, \"primaryMetric\": {"
				+ "\"score\": " + number(score) + ", \"scoreError\": " + number(score * 0.05) + ", \"scoreUnit\": \""
				+ unit + "\", " + data + "}, \"secondaryMetrics\": {}}";
	}

	private static String number(double value) {
		return String.format(Locale.ROOT, "%.6f", value);
	}

}
