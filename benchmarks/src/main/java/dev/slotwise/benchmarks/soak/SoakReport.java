package dev.slotwise.benchmarks.soak;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Writes a run's report into its folder: {@code report.md} (the invariants per
 * application, a table per fault kind, every fault with each application's recovery),
 * {@code timeline.png} (operations and errors per second with the faults marked) and
 * {@code timeline.csv}. Decides the exit status: 1 when an application with Slotwise read
 * a wrong value or did not recover from a fault within {@link #RECOVERY_LIMIT_NANOS}.
 */
final class SoakReport {

	/** The longest a recovery may take, from the fault's end. */
	static final long RECOVERY_LIMIT_NANOS = 15_000_000_000L;

	/** After a fault ends, errors still count as the fault's for this long. */
	static final long GRACE_NANOS = 10_000_000_000L;

	private final SoakOptions options;

	private final List<Target> targets;

	private final FaultLog log;

	private final long endNanos;

	private final long threadsAtStart;

	private final long threadsAtEnd;

	private final String loadStart;

	private final String loadEnd;

	SoakReport(SoakOptions options, List<Target> targets, FaultLog log, long endNanos, long threadsAtStart,
			long threadsAtEnd, String loadStart, String loadEnd) {
		this.options = options;
		this.targets = targets;
		this.log = log;
		this.endNanos = endNanos;
		this.threadsAtStart = threadsAtStart;
		this.threadsAtEnd = threadsAtEnd;
		this.loadStart = loadStart;
		this.loadEnd = loadEnd;
	}

	int write() throws IOException {
		List<FaultLog.Fault> faults = this.log.all();
		StringBuilder md = new StringBuilder();
		md.append("# Chaos soak ").append(this.options.out().getFileName()).append("\n\n");
		md.append(String.format(
				"%.1f minutes, seed %d, faults drawn from %s, %d workers per application at %s ops/s "
						+ "each, %d faults. Load average %s at the start, %s at the end.%n%n",
				this.endNanos / 60e9, this.options.seed(), this.options.faults(), this.options.workers(),
				(this.options.rate() > 0) ? Integer.toString(this.options.rate()) : "unlimited", faults.size(),
				this.loadStart, this.loadEnd));
		md.append("Every application ran against the same cluster at the same time, so each met the same faults. ")
			.append("Wrong values break the promise; \"lost to a kill\" are acknowledged writes the server dropped ")
			.append("(asynchronous replication: the master was killed within 1 s of the write).\n\n");
		md.append("| | ").append(String.join(" | ", this.targets.stream().map((t) -> t.name).toList())).append(" |\n");
		md.append("|---|").append("---:|".repeat(this.targets.size())).append('\n');
		row(md, "operations", (t) -> Long.toString(t.operations.sum()));
		row(md, "values checked", (t) -> Long.toString(t.invariants.checked.sum()));
		row(md, "**wrong values**", (t) -> "**" + t.invariants.wrong() + "**");
		row(md, "&nbsp; never written", (t) -> Long.toString(t.invariants.neverWritten.sum()));
		row(md, "&nbsp; late writes (a failed SET landing over a newer one)",
				(t) -> Long.toString(t.invariants.lateWrites.sum()));
		row(md, "&nbsp; other stale reads", (t) -> Long.toString(t.invariants.staleReads.sum()));
		row(md, "&nbsp; acknowledged increments lost, no kill",
				(t) -> Long.toString(t.invariants.lostIncrementsUnexplained.sum()));
		row(md, "&nbsp; near cache: reads older than 1 s after a newer acknowledged write",
				(t) -> t.slotwise ? Long.toString(t.invariants.nearCacheStale.sum()) : "–");
		row(md, "duplicate increments (at-least-once re-sends)",
				(t) -> Long.toString(t.invariants.duplicateIncrements.sum()));
		row(md, "acknowledged writes lost to a kill", (t) -> Long.toString(t.invariants.lostToKill.sum()));
		row(md, "acknowledged increments lost to a kill",
				(t) -> Long.toString(t.invariants.lostIncrementsToKill.sum()));
		row(md, "failed increments the server applied", (t) -> Long.toString(t.invariants.failedButApplied.sum()));
		row(md, "near cache: values read by its reader (every application's keys)",
				(t) -> t.slotwise ? Long.toString(t.nearCache.reads.sum()) : "–");
		row(md, "near cache: keys in memory when read (≈ hits)",
				(t) -> t.slotwise ? Long.toString(t.nearCache.hits.sum()) : "–");
		row(md, "near cache: worst lag behind an acknowledged write (ms)",
				(t) -> t.slotwise ? String.format("%.1f", t.nearCache.worstLagNanos.get() / 1e6) : "–");
		row(md, "near cache: older values explained by a kill / a failed write / read errors",
				(t) -> t.slotwise ? t.nearCache.excusedKill.sum() + " / " + t.nearCache.excusedLate.sum() + " / "
						+ t.nearCache.errors.sum() : "–");
		row(md, "errors", (t) -> Long.toString(t.errorTimes().size()));
		row(md, "**errors outside fault windows**", (t) -> "**" + errorsOutside(t) + "**");
		row(md, "**faults not recovered within 15 s**", (t) -> "**" + unrecovered(t) + "**");
		row(md, "slowest recovery (s)", (t) -> seconds(slowest(t)));
		row(md, "connections start → end", (t) -> t.connectionsAtStart + " → " + t.connectionsAtEnd
				+ (bounded(t.connectionsAtStart, t.connectionsAtEnd) ? "" : " **(>2×)**"));
		md.append(String.format("%nJVM threads (all applications): %d at the start, %d at the end%s.%n%n",
				this.threadsAtStart, this.threadsAtEnd,
				bounded(this.threadsAtStart, this.threadsAtEnd) ? "" : " **(more than 2×)**"));

		md.append("## Per fault kind\n\nRecovery: from the fault's end to ")
			.append(Target.RECOVERED_AFTER)
			.append(" consecutive successful operations (median / slowest, seconds); errors: during the fault and ")
			.append("the 10 s after it.\n\n");
		md.append("| fault | count |");
		this.targets.forEach((t) -> md.append(' ').append(t.name).append(" errors | recovery |"));
		md.append("\n|---|---:|").append("---:|---:|".repeat(this.targets.size())).append('\n');
		for (String kind : Faults.KINDS) {
			List<FaultLog.Fault> ofKind = faults.stream().filter((f) -> f.kind.equals(kind)).toList();
			if (ofKind.isEmpty()) {
				continue;
			}
			md.append("| ").append(kind).append(" | ").append(ofKind.size()).append(" |");
			for (Target target : this.targets) {
				List<Target.Recovery> recoveries = target.recoveries.stream()
					.filter((r) -> r.fault.kind.equals(kind))
					.toList();
				long errors = recoveries.stream().mapToLong((r) -> r.errors).sum();
				List<Long> times = recoveries.stream().map((r) -> r.recoveredNanos).sorted().toList();
				String recovery = times.stream().anyMatch((n) -> n < 0) ? "**not recovered**"
						: seconds(times.get(times.size() / 2)) + " / " + seconds(times.get(times.size() - 1));
				md.append(' ').append(errors).append(" | ").append(recovery).append(" |");
			}
			md.append('\n');
		}
		md.append("\n## Faults\n\n| # | at (s) | lasted (s) | fault |");
		this.targets.forEach((t) -> md.append(' ').append(t.name).append(" |"));
		md.append("\n|---:|---:|---:|---|").append("---:|".repeat(this.targets.size())).append('\n');
		for (FaultLog.Fault fault : faults) {
			md.append(String.format("| %d | %.1f | %.1f | %s |", fault.number, fault.startNanos / 1e9,
					(fault.endNanos - fault.startNanos) / 1e9, fault.detail));
			for (Target target : this.targets) {
				Target.Recovery recovery = target.recoveries.stream()
					.filter((r) -> r.fault == fault)
					.findFirst()
					.orElse(null);
				md.append(' ')
					.append((recovery == null) ? ""
							: recovery.errors + " err, "
									+ ((recovery.recoveredNanos < 0) ? "**not recovered**"
											: seconds(recovery.recoveredNanos) + " s"))
					.append(" |");
			}
			md.append('\n');
		}
		md.append("\n## Errors by operation and cause\n");
		for (Target target : this.targets) {
			md.append("\n**").append(target.name).append("**\n\n");
			Map<String, Long> kinds = target.errorKinds();
			if (kinds.isEmpty()) {
				md.append("none\n");
			}
			kinds.entrySet()
				.stream()
				.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
				.limit(12)
				.forEach((e) -> md.append("- ").append(e.getValue()).append(" × ").append(e.getKey()).append('\n'));
		}
		md.append("\n## First violations\n");
		for (Target target : this.targets) {
			List<String> examples = target.invariants.examples();
			if (!examples.isEmpty()) {
				md.append("\n**").append(target.name).append("**\n\n");
				examples.forEach((e) -> md.append("- ").append(e).append('\n'));
			}
		}
		md.append("\n![timeline](timeline.png)\n");

		int status = 0;
		StringBuilder verdict = new StringBuilder();
		for (Target target : this.targets) {
			if (!target.slotwise) {
				continue;
			}
			if (target.invariants.wrong() > 0) {
				verdict.append(target.name).append(": ").append(target.invariants.wrong()).append(" wrong values. ");
				status = 1;
			}
			if (target.nearCache.reads.sum() > 0 && target.nearCache.hits.sum() == 0) {
				verdict.append(target.name).append(": the near cache never held a key it was asked for. ");
				status = 1;
			}
			if (unrecovered(target) > 0) {
				verdict.append(target.name).append(": ").append(unrecovered(target)).append(" faults not recovered. ");
				status = 1;
			}
		}
		String result = (status == 0) ? "PASS: no wrong value and every fault recovered with Slotwise."
				: "FAIL: " + verdict.toString().trim();
		md.insert(md.indexOf("\n\n") + 2, "**" + result + "**\n\n");
		Files.writeString(this.options.out().resolve("report.md"), md.toString());
		writeCsv();
		try {
			chart();
		}
		catch (RuntimeException | IOException ex) {
			System.err.println("[soak] no chart: " + ex);
		}
		System.out.println(md);
		System.out.println("[soak] " + result + " Report: " + this.options.out().resolve("report.md"));
		return status;
	}

	private interface Cell {

		String of(Target target);

	}

	private void row(StringBuilder md, String label, Cell cell) {
		md.append("| ").append(label).append(" |");
		this.targets.forEach((t) -> md.append(' ').append(cell.of(t)).append(" |"));
		md.append('\n');
	}

	long errorsOutside(Target target) {
		return target.errorTimes().stream().filter((e) -> !this.log.insideWindow(e[0], e[1], GRACE_NANOS)).count();
	}

	static long unrecovered(Target target) {
		return target.recoveries.stream()
			.filter((r) -> r.recoveredNanos < 0 || r.recoveredNanos > RECOVERY_LIMIT_NANOS)
			.count();
	}

	private static long slowest(Target target) {
		return target.recoveries.stream().mapToLong((r) -> r.recoveredNanos).max().orElse(0);
	}

	private static boolean bounded(long start, long end) {
		return end <= 2 * Math.max(1, start);
	}

	private static String seconds(long nanos) {
		return (nanos < 0) ? "never" : String.format("%.2f", nanos / 1e9);
	}

	private int seconds() {
		return (int) Math.min(this.targets.get(0).opsPerSecond.length(), this.endNanos / 1_000_000_000L + 1);
	}

	private void writeCsv() throws IOException {
		StringBuilder csv = new StringBuilder("second");
		this.targets.forEach((t) -> csv.append(',').append(t.name).append("_ops,").append(t.name).append("_errors"));
		csv.append(",faults\n");
		List<FaultLog.Fault> faults = this.log.all();
		for (int s = 0; s < seconds(); s++) {
			csv.append(s);
			for (Target target : this.targets) {
				csv.append(',').append(target.opsPerSecond.get(s)).append(',').append(target.errorsPerSecond.get(s));
			}
			int second = s;
			csv.append(',')
				.append(String.join(" ",
						faults.stream()
							.filter((f) -> f.startNanos / 1_000_000_000L == second)
							.map((f) -> f.kind)
							.toList()));
			csv.append('\n');
		}
		Files.writeString(this.options.out().resolve("timeline.csv"), csv.toString());
	}

	private void chart() throws IOException {
		XYChart chart = new XYChartBuilder().width(1400)
			.height(600)
			.title("Chaos soak, seed " + this.options.seed() + ": operations/s (lines) and errors/s (dots, right axis)")
			.xAxisTitle("seconds")
			.yAxisTitle("operations/s")
			.build();
		chart.getStyler().setLegendPosition(LegendPosition.OutsideS);
		chart.getStyler().setChartBackgroundColor(Color.WHITE);
		chart.getStyler().setMarkerSize(4);
		chart.getStyler().setAnnotationLineColor(Color.GRAY);
		chart.getStyler()
			.setAnnotationLineStroke(
					new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] { 4f }, 0f));
		chart.setYAxisGroupTitle(1, "errors/s");
		int n = seconds();
		double[] x = new double[n];
		for (int s = 0; s < n; s++) {
			x[s] = s;
		}
		Color[] colors = { new Color(0x1f77b4), new Color(0xaec7e8), new Color(0xd62728), new Color(0xff9896) };
		int i = 0;
		for (Target target : this.targets) {
			double[] ops = new double[n];
			// Errors only where there were some: a row of zeros along the axis hides the
			// operations.
			List<Double> errorSeconds = new java.util.ArrayList<>();
			List<Double> errors = new java.util.ArrayList<>();
			for (int s = 0; s < n; s++) {
				ops[s] = target.opsPerSecond.get(s);
				long e = target.errorsPerSecond.get(s);
				if (e > 0) {
					errorSeconds.add((double) s);
					errors.add((double) e);
				}
			}
			Color color = colors[i++ % colors.length];
			XYSeries opsSeries = chart.addSeries(target.name + " ops/s", x, ops);
			opsSeries.setMarker(SeriesMarkers.NONE);
			opsSeries.setLineColor(color);
			if (errors.isEmpty()) {
				continue;
			}
			XYSeries errorSeries = chart.addSeries(target.name + " errors/s", errorSeconds, errors);
			errorSeries.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
			errorSeries.setMarker(SeriesMarkers.CIRCLE);
			errorSeries.setMarkerColor(color);
			errorSeries.setYAxisGroup(1);
		}
		double top = this.targets.stream().mapToLong((t) -> {
			long max = 0;
			for (int s = 0; s < n; s++) {
				max = Math.max(max, t.opsPerSecond.get(s));
			}
			return max;
		}).max().orElse(1);
		for (FaultLog.Fault fault : this.log.all()) {
			double at = fault.startNanos / 1e9;
			AnnotationLine line = new AnnotationLine(at, true, false);
			chart.addAnnotation(line);
			chart.addAnnotation(new AnnotationText(fault.kind, at, top * (0.98 - 0.04 * (fault.number % 4)), false));
		}
		BitmapEncoder.saveBitmap(chart, this.options.out().resolve("timeline.png").toString(), BitmapFormat.PNG);
	}

}
