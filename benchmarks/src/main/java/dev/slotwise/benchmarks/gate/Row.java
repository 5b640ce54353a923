package dev.slotwise.benchmarks.gate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * One JMH result (a benchmark method with one set of parameters) reduced to what the gate
 * needs: a central value and the spread of the measurement iterations around it.
 * <p>
 * The value is JMH's score, except in sample mode where it is the median of all samples
 * (a handful of slow calls on a busy machine move the mean a lot and the median little).
 * The spread comes from the iterations, not from JMH's error: in sample mode JMH's error
 * treats thousands of calls as independent samples and comes out tiny even when whole
 * iterations differ by half; across iterations it is what a second run would see. Each
 * iteration contributes its mean (its median in sample mode).
 *
 * @param benchmark the benchmark method's full name
 * @param mode JMH's mode: {@code thrpt}, {@code avgt}, {@code sample} or {@code ss}
 * @param params the parameters, sorted by name
 * @param value the central value (score, or median in sample mode)
 * @param jmhError JMH's 99.9% error half-width (NaN when JMH gave none)
 * @param unit the score's unit
 * @param iterations the per-iteration values over all forks
 */
public record Row(String benchmark, String mode, Map<String, String> params, double value, double jmhError, String unit,
		List<Double> iterations) {

	/**
	 * The key under which two runs' results are matched: benchmark, mode and parameters.
	 * @return the key
	 */
	public String key() {
		return shortName() + " " + this.mode + (this.params.isEmpty() ? "" : " " + this.params);
	}

	/**
	 * The benchmark's class and method, without the package.
	 * @return e.g. {@code MultiGetLatencyBenchmark.multiGet}
	 */
	public String shortName() {
		int method = this.benchmark.lastIndexOf('.');
		int type = (method > 0) ? this.benchmark.lastIndexOf('.', method - 1) : -1;
		return this.benchmark.substring(type + 1);
	}

	/**
	 * The benchmark's class without the package.
	 * @return e.g. {@code MultiGetLatencyBenchmark}
	 */
	public String className() {
		String name = shortName();
		int dot = name.indexOf('.');
		return (dot < 0) ? name : name.substring(0, dot);
	}

	/**
	 * Whether a higher score is better (throughput) rather than a lower one (time per
	 * operation).
	 * @return true for throughput
	 */
	public boolean higherIsBetter() {
		return this.mode.equals("thrpt");
	}

	/**
	 * The value as a speed, so that higher is always better: the score for throughput,
	 * its inverse for times.
	 * @return the speed
	 */
	public double speed() {
		return higherIsBetter() ? this.value : 1 / this.value;
	}

	/**
	 * The standard error of the value relative to it, from the iterations
	 * ({@code sd / sqrt(n) / value}); to first order the same for the speed. Infinite
	 * when there are fewer than two iterations: the noise is then unknown.
	 * @return the relative standard error
	 */
	public double relativeStandardError() {
		int n = this.iterations.size();
		return (n < 2) ? Double.POSITIVE_INFINITY : standardDeviation() / Math.sqrt(n) / Math.abs(this.value);
	}

	/**
	 * The spread of the iterations relative to the value (coefficient of variation): how
	 * unsteady the run was.
	 * @return the relative standard deviation, infinite with fewer than two iterations
	 */
	public double relativeSpread() {
		return (this.iterations.size() < 2) ? Double.POSITIVE_INFINITY : standardDeviation() / Math.abs(this.value);
	}

	/**
	 * Degrees of freedom of the standard error.
	 * @return iterations minus one
	 */
	public int degreesOfFreedom() {
		return this.iterations.size() - 1;
	}

	private double standardDeviation() {
		double mean = this.iterations.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
		double squares = this.iterations.stream().mapToDouble((v) -> (v - mean) * (v - mean)).sum();
		return Math.sqrt(squares / (this.iterations.size() - 1));
	}

	/**
	 * Reads one element of a JMH JSON result array.
	 * @param run the element
	 * @return the row
	 * @throws IllegalArgumentException when a required field is missing
	 */
	static Row of(JsonObject run) {
		String benchmark = required(run, "benchmark").getAsString();
		String mode = required(run, "mode").getAsString();
		Map<String, String> params = new TreeMap<>();
		if (run.has("params")) {
			run.getAsJsonObject("params").entrySet().forEach((e) -> params.put(e.getKey(), e.getValue().getAsString()));
		}
		JsonObject metric = required(run, "primaryMetric").getAsJsonObject();
		double score = number(required(metric, "score"));
		double error = metric.has("scoreError") ? number(metric.get("scoreError")) : Double.NaN;
		String unit = metric.has("scoreUnit") ? metric.get("scoreUnit").getAsString() : "";
		List<Double> iterations = new ArrayList<>();
		double value = score;
		if (metric.has("rawDataHistogram")) {
			for (JsonElement fork : metric.getAsJsonArray("rawDataHistogram")) {
				for (JsonElement iteration : fork.getAsJsonArray()) {
					iterations.add(histogramMedian(iteration.getAsJsonArray()));
				}
			}
			if (metric.has("scorePercentiles") && metric.getAsJsonObject("scorePercentiles").has("50.0")) {
				value = number(metric.getAsJsonObject("scorePercentiles").get("50.0"));
			}
		}
		else if (metric.has("rawData")) {
			for (JsonElement fork : metric.getAsJsonArray("rawData")) {
				for (JsonElement iteration : fork.getAsJsonArray()) {
					iterations.add(number(iteration));
				}
			}
		}
		if (!(value > 0) || Double.isInfinite(value)) {
			throw new IllegalArgumentException(benchmark + " " + params + " has no positive score: " + value);
		}
		return new Row(benchmark, mode, params, value, error, unit, List.copyOf(iterations));
	}

	private static double histogramMedian(JsonArray buckets) {
		long total = 0;
		for (JsonElement bucket : buckets) {
			total += bucket.getAsJsonArray().get(1).getAsLong();
		}
		long seen = 0;
		for (JsonElement bucket : buckets) {
			seen += bucket.getAsJsonArray().get(1).getAsLong();
			if (seen * 2 >= total) {
				return bucket.getAsJsonArray().get(0).getAsDouble();
			}
		}
		return Double.NaN;
	}

	private static JsonElement required(JsonObject object, String name) {
		JsonElement element = object.get(name);
		if (element == null || element.isJsonNull()) {
			throw new IllegalArgumentException("a JMH result without \"" + name + "\"");
		}
		return element;
	}

	private static double number(JsonElement element) {
		try {
			return element.getAsDouble();
		}
		catch (RuntimeException ex) {
			// JMH writes "NaN" as a string when it cannot compute an error.
			return Double.NaN;
		}
	}

}
