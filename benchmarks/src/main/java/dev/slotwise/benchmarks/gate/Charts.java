package dev.slotwise.benchmarks.gate;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The run's charts (PNG, XChart): {@code multiget-latency.png}, latency against keys per
 * call for each implementation on log-log axes; and one bar chart per other family, the
 * variants side by side (the in-run baseline among them) with the 95% interval of each
 * bar. Needs {@code java.awt.headless=true} on a server.
 */
public final class Charts {

	private static final int WIDTH = 900;

	private static final int HEIGHT = 560;

	private Charts() {
	}

	/**
	 * Writes every chart the run's families allow.
	 * @param folder the run folder
	 * @param families the rows per family (file name without {@code .json})
	 * @return the files written
	 * @throws IOException when a file cannot be written
	 */
	static List<Path> write(Path folder, Map<String, List<Row>> families) throws IOException {
		List<Path> written = new ArrayList<>();
		for (Map.Entry<String, List<Row>> family : families.entrySet()) {
			List<Row> rows = family.getValue();
			if (rows.isEmpty()) {
				continue;
			}
			Path file = folder.resolve(family.getKey() + ".png");
			String axis = axisOf(rows);
			try {
				save((axis != null) ? latencyChart(family.getKey(), rows, axis) : barChart(family.getKey(), rows),
						file);
				written.add(file);
			}
			catch (RuntimeException ex) {
				// A chart is a convenience: the summary and the JSON stand without it.
				Files.deleteIfExists(file);
				System.err.println("No chart for " + family.getKey() + ": " + ex.getMessage());
			}
		}
		return written;
	}

	/**
	 * The parameter a family's latency is drawn against: keys per call for the multi-get
	 * latencies, masters for the cluster-size sweep; {@code null} for a bar chart.
	 */
	static @Nullable String axisOf(List<Row> rows) {
		String axis = switch (rows.get(0).className()) {
			case "MultiGetLatencyBenchmark" -> "keys";
			case "ClusterSizeBenchmark" -> "masters";
			default -> null;
		};
		return (axis != null && rows.stream().map((r) -> r.params().get(axis)).distinct().count() > 1) ? axis : null;
	}

	static XYChart latencyChart(String title, List<Row> rows) {
		return latencyChart(title, rows, "keys");
	}

	static XYChart latencyChart(String title, List<Row> rows, String axis) {
		boolean byKeys = axis.equals("keys");
		XYChart chart = new XYChartBuilder().width(WIDTH)
			.height(HEIGHT)
			.title(title + ": one multiGet of " + (byKeys ? "" : rows.get(0).params().getOrDefault("keys", "") + " ")
					+ "random cross-slot keys (median)")
			.xAxisTitle(byKeys ? "keys per call" : "masters")
			.yAxisTitle(rows.get(0).unit())
			.build();
		chart.getStyler().setXAxisLogarithmic(true);
		chart.getStyler().setYAxisLogarithmic(true);
		chart.getStyler().setLegendPosition(LegendPosition.InsideNW);
		chart.getStyler().setMarkerSize(8);
		chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
		Map<String, TreeMap<Integer, Row>> byTarget = new TreeMap<>();
		for (Row row : rows) {
			byTarget.computeIfAbsent(row.params().getOrDefault("target", "?"), (t) -> new TreeMap<>())
				.put(Integer.parseInt(row.params().get(axis)), row);
		}
		for (Map.Entry<String, TreeMap<Integer, Row>> target : byTarget.entrySet()) {
			List<Integer> keys = new ArrayList<>(target.getValue().keySet());
			List<Double> values = target.getValue().values().stream().map(Row::value).toList();
			boolean baseline = Baselines.isBaseline(target.getValue().firstEntry().getValue());
			chart.addSeries(target.getKey() + (baseline ? " (baseline)" : ""), keys, values)
				.setMarker(baseline ? SeriesMarkers.DIAMOND : SeriesMarkers.CIRCLE);
		}
		return chart;
	}

	static CategoryChart barChart(String title, List<Row> rows) {
		Row first = rows.get(0);
		String categoryParam = Baselines.of(first)
			.map(Map.Entry::getKey)
			.orElse(first.params().isEmpty() ? "" : first.params().keySet().iterator().next());
		CategoryChart chart = new CategoryChartBuilder().width(WIDTH)
			.height(HEIGHT)
			.title(title + " (" + first.mode() + ")")
			.xAxisTitle(categoryParam)
			.yAxisTitle(first.unit())
			.build();
		chart.getStyler().setLegendPosition(LegendPosition.InsideNE);
		chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
		chart.getStyler().setErrorBarsColorSeriesColor(false);
		chart.getStyler().setErrorBarsColor(java.awt.Color.DARK_GRAY);
		chart.getStyler().setXAxisLabelRotation(15);
		double min = rows.stream().mapToDouble(Row::value).min().orElse(1);
		double max = rows.stream().mapToDouble(Row::value).max().orElse(1);
		// Topology lookups span four orders of magnitude between providers: a log axis,
		// without error bars (XChart refuses bars whose interval reaches zero on a log
		// axis).
		boolean logarithmic = max / min > 50;
		chart.setTitle(chart.getTitle().replace(")", logarithmic ? ", log scale)" : ", ± 95%)"));
		chart.getStyler().setYAxisLogarithmic(logarithmic);
		if (logarithmic) {
			chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(min))));
		}
		List<String> categories = rows.stream()
			.map((r) -> r.params().getOrDefault(categoryParam, r.shortName()))
			.distinct()
			.toList();
		Map<String, List<Row>> bySeries = new LinkedHashMap<>();
		for (Row row : rows) {
			String series = row.params()
				.entrySet()
				.stream()
				.filter((e) -> !e.getKey().equals(categoryParam))
				.map((e) -> e.getKey() + "=" + e.getValue())
				.collect(Collectors.joining(", "));
			bySeries.computeIfAbsent(series.isEmpty() ? first.shortName() : series, (s) -> new ArrayList<>()).add(row);
		}
		for (Map.Entry<String, List<Row>> series : bySeries.entrySet()) {
			List<Double> values = new ArrayList<>();
			List<Double> errors = new ArrayList<>();
			for (String category : categories) {
				Row row = series.getValue()
					.stream()
					.filter((r) -> category.equals(r.params().getOrDefault(categoryParam, r.shortName())))
					.findFirst()
					.orElse(null);
				values.add(row == null ? 0.0 : row.value());
				double error = (row == null) ? 0 : Estimate.speedOf(row).relativeHalfWidth() * row.value();
				errors.add(Double.isFinite(error) ? Math.min(error, row.value() * 0.99) : 0.0);
			}
			if (logarithmic) {
				chart.addSeries(series.getKey(), categories, values);
			}
			else {
				chart.addSeries(series.getKey(), categories, values, errors);
			}
		}
		return chart;
	}

	/**
	 * Writes a latency chart (log-log, one series per target) of rows measured outside
	 * JMH, e.g. the interleaved cluster-size sweep.
	 * @param file the PNG to write
	 * @param title the chart's title prefix
	 * @param rows one row per target and axis value, with {@code target} and the axis
	 * among the parameters
	 * @param axis the parameter on the x axis: {@code keys} or {@code masters}
	 * @throws IOException when the file cannot be written
	 */
	public static void writeLatency(Path file, String title, List<Row> rows, String axis) throws IOException {
		save(latencyChart(title, rows, axis), file);
	}

	private static void save(Chart<?, ?> chart, Path file) throws IOException {
		try (OutputStream out = Files.newOutputStream(file)) {
			BitmapEncoder.saveBitmap(chart, out, BitmapFormat.PNG);
		}
	}

}
