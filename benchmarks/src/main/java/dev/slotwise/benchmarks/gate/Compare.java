package dev.slotwise.benchmarks.gate;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The benchmark gate: compares a candidate run with a baseline run, benchmark by
 * benchmark and parameter by parameter, and exits 1 when something regressed, 0
 * otherwise, 2 on input it cannot judge.
 * <p>
 * Every comparison is made on speeds (throughput, or the inverse of a time) so that a
 * negative change always means slower. It is made twice: on the absolute speed, and on
 * the speed relative to the in-run baseline (Spring Data Redis without Slotwise, measured
 * in the same run; see {@link Baselines}). A change is a REGRESSION only when it is
 * slower by more than the threshold <em>and</em> by more than the 95% interval of the
 * change (the iteration noise of both runs combined). A comparison where either run's
 * iterations spread by more than the unstable limit is reported as UNSTABLE and never
 * gated: such a run measured the machine's load more than the code.
 * <p>
 * The gate acts on the ratios by default: a busier or slower machine slows the baseline
 * and Slotwise alike and leaves their ratio in place, while a slowdown of Slotwise's own
 * code moves the ratio. Absolute changes are reported, and gated only with
 * {@code --gate absolute} or {@code --gate both} (same machine, same load), for a
 * benchmark class that has no in-run baseline, or for a row whose in-run baseline did not
 * run in both runs (a run of only the Slotwise targets): such rows are gated on absolute
 * speed, and refused (exit 2) when the two run folders' {@code machine.json} name
 * different machines.
 * <p>
 * Beside them, the rows "Lettuce path ÷ Jedis path" ({@link ClientPaths}): Slotwise over
 * Lettuce's time divided by Slotwise over Jedis's, same run. Both paths run on the same
 * engine, so this ratio moves when one client's path changes speed, which the ratios to
 * Spring Data over Lettuce do not show (issue 27). The row at 1,000 keys fails the gate
 * when the candidate run's is above the limit by more than its 95% interval, or when it
 * rose against the baseline run by the rule above (the Lettuce path's speed relative to
 * the Jedis path's, slower by more than the threshold and the interval).
 * <p>
 * {@code java -cp benchmarks.jar dev.slotwise.benchmarks.gate.Compare [--threshold 0.10] [--unstable 0.25]
 * [--gate ratio|absolute|both] BASELINE CANDIDATE} with JMH JSON files or run folders.
 */
public final class Compare {

	/**
	 * Default threshold: a slowdown of less than this is never a regression (see the
	 * README's Benchmarks section for the run-to-run spread it is chosen from).
	 */
	public static final double DEFAULT_THRESHOLD = 0.10;

	/**
	 * Default limit on the iterations' relative spread (coefficient of variation) above
	 * which a row is unstable.
	 */
	public static final double DEFAULT_UNSTABLE = 0.25;

	private Compare() {
	}

	/**
	 * Runs the gate and exits with its code.
	 * @param args the options and the two inputs
	 */
	public static void main(String[] args) {
		System.exit(run(args, System.out, System.err));
	}

	/**
	 * Runs the gate.
	 * @param args the options and the two inputs
	 * @param out where the report goes
	 * @param err where problems with the input go
	 * @return 0 nothing regressed, 1 a gated regression, 2 bad input
	 */
	public static int run(String[] args, PrintStream out, PrintStream err) {
		try {
			Options options = Options.parse(args);
			Map<String, Row> baseline = ResultFiles.read(options.baseline());
			Map<String, Row> candidate = ResultFiles.read(options.candidate());
			Report report = compare(baseline, candidate, options);
			refuseAcrossMachines(report, options);
			out.printf("Comparing %s (baseline) with %s (candidate)%n", options.baseline(), options.candidate());
			machineWarning(options.baseline(), options.candidate()).ifPresent(out::println);
			report.print(out, options);
			return report.regressions() > 0 ? 1 : 0;
		}
		catch (BadInputException ex) {
			err.println("compare: " + ex.getMessage());
			return 2;
		}
	}

	/**
	 * Warns when two run folders name different processors or core counts in their
	 * {@code machine.json}: the in-run ratio absorbs a uniformly slower machine, but not
	 * a processor that favours one client's way of working over another's (the full runs
	 * of 2026-11-23 and 2026-11-25, on two processor models, moved Spring Data over Jedis
	 * against Spring Data over Lettuce, no Slotwise code on either side, by up to 41%).
	 * @param baseline the baseline file or folder
	 * @param candidate the candidate file or folder
	 * @return the warning, empty when both folders name the same machine or either does
	 * not say
	 */
	static Optional<String> machineWarning(Path baseline, Path candidate) {
		Optional<String> before = machineOf(baseline);
		Optional<String> after = machineOf(candidate);
		if (before.isEmpty() || after.isEmpty() || before.get().equals(after.get())) {
			return Optional.empty();
		}
		return Optional.of("WARNING: the runs were made on different machines (baseline: " + before.get()
				+ "; candidate: " + after.get() + "). Ratios between different clients move with the processor: "
				+ "a verdict below may be the machine's, not the code's. Compare runs of one machine.");
	}

	private static Optional<String> machineOf(Path run) {
		if (!Files.isDirectory(run)) {
			return Optional.empty();
		}
		try {
			return Summary.machine(run)
				.filter((machine) -> machine.has("cpu") && machine.has("cores"))
				.map((machine) -> machine.get("cores").getAsString() + " cores, " + machine.get("cpu").getAsString());
		}
		catch (IOException ex) {
			return Optional.empty();
		}
	}

	/**
	 * Compares two runs.
	 * @param baseline the baseline run's rows by key
	 * @param candidate the candidate run's rows by key
	 * @param options threshold, unstable limit and gate
	 * @return the report
	 * @throws BadInputException when the runs have no benchmark in common
	 */
	public static Report compare(Map<String, Row> baseline, Map<String, Row> candidate, Options options) {
		List<Line> lines = new ArrayList<>();
		List<String> missing = new ArrayList<>();
		List<String> added = new ArrayList<>();
		List<String> withoutBaseline = new ArrayList<>();
		for (Row base : baseline.values()) {
			Row cand = candidate.get(base.key());
			if (cand == null) {
				missing.add(base.key());
				continue;
			}
			boolean hasBaseline = Baselines.of(base).isPresent();
			Optional<Row> baseRef = Baselines.baselineRow(base, baseline.values());
			Optional<Row> candRef = Baselines.baselineRow(cand, candidate.values());
			boolean ratio = baseRef.isPresent() && candRef.isPresent();
			if (ratio) {
				Estimate before = Estimate.speedOf(base).divide(Estimate.speedOf(baseRef.get()));
				Estimate after = Estimate.speedOf(cand).divide(Estimate.speedOf(candRef.get()));
				boolean unstable = unstable(options, base, baseRef.get(), cand, candRef.get());
				lines.add(judge(base.key() + " vs " + Baselines.describe(base), Kind.RATIO, before, after, "x",
						unstable, options, options.gate() != Gate.ABSOLUTE));
			}
			// A row whose class has an in-run baseline that did not run in both runs (a
			// run of only the Slotwise targets) has no ratio: left ungated, a slowdown of
			// every row would pass. Its absolute speed is gated instead, which is only
			// meaningful between runs of one machine (checked by the caller).
			boolean orphan = hasBaseline && !ratio && !Baselines.isBaseline(base);
			if (orphan) {
				withoutBaseline.add(base.key());
			}
			boolean gateAbsolute = options.gate() != Gate.RATIO || !hasBaseline || orphan;
			lines.add(judge(base.key(), Kind.ABSOLUTE, Estimate.speedOf(base), Estimate.speedOf(cand), base.unit(),
					unstable(options, base, cand), options, gateAbsolute)
				.withValues(base.value(), cand.value()));
		}
		for (String key : candidate.keySet()) {
			if (!baseline.containsKey(key)) {
				added.add(key);
			}
		}
		if (lines.isEmpty()) {
			throw new BadInputException("No benchmark in common: the baseline has " + baseline.keySet()
					+ ", the candidate " + candidate.keySet());
		}
		ClientPaths.Rows before = ClientPaths.of(baseline.values());
		ClientPaths.Rows after = ClientPaths.of(candidate.values());
		List<ClientLine> clients = new ArrayList<>();
		List<String> clientNotes = new ArrayList<>();
		after.skipped().forEach((name) -> clientNotes.add("candidate run: " + name));
		before.skipped().forEach((name) -> clientNotes.add("baseline run: " + name));
		for (ClientPaths.Pair pair : after.pairs()) {
			Optional<ClientPaths.Pair> old = before.find(pair.name());
			// The same judgement as the ratios to the in-run baseline, on the Lettuce
			// path's speed relative to the Jedis path's.
			Optional<Line> drift = old.map((o) -> judge(pair.name(), Kind.CLIENTS, o.relativeSpeed(),
					pair.relativeSpeed(), "x", unstable(options, o.lettuce(), o.jedis(), pair.lettuce(), pair.jedis()),
					options, pair.gated()));
			if (old.isEmpty()) {
				clientNotes.add(pair.name() + ": not in the baseline run, change not judged");
			}
			clients
				.add(new ClientLine(pair, old.map(ClientPaths.Pair::timeRatio), pair.limit(options.unstable()), drift));
		}
		return new Report(lines, missing, added, withoutBaseline, clients, clientNotes);
	}

	/**
	 * Refuses a comparison that would gate rows on absolute speed across two different
	 * machines: rows whose in-run baseline is missing have nothing else to be gated on,
	 * and an absolute speed measured on another processor says nothing about the code.
	 * @param report the comparison
	 * @param options the gate's settings (and the two inputs, whose {@code machine.json}
	 * are read)
	 * @throws BadInputException when rows without a baseline would be judged across
	 * machines
	 */
	static void refuseAcrossMachines(Report report, Options options) {
		if (report.withoutBaseline().isEmpty() || options.gate() != Gate.RATIO) {
			return;
		}
		Optional<String> before = machineOf(options.baseline());
		Optional<String> after = machineOf(options.candidate());
		if (before.isEmpty() || after.isEmpty() || before.get().equals(after.get())) {
			return;
		}
		throw new BadInputException("Cannot gate " + report.withoutBaseline().size() + " row(s) whose in-run "
				+ "baseline did not run in both runs (" + String.join("; ", report.withoutBaseline()) + "): without "
				+ "a ratio only their absolute speed could be gated, and the runs come from different machines "
				+ "(baseline: " + before.get() + "; candidate: " + after.get() + "). Rerun the candidate with the "
				+ "baseline targets, compare with a run of the same machine, or pass --gate absolute to gate the "
				+ "absolute speeds anyway.");
	}

	private static boolean unstable(Options options, Row... rows) {
		for (Row row : rows) {
			if (!(row.relativeSpread() <= options.unstable())) {
				return true;
			}
		}
		return false;
	}

	private static Line judge(String name, Kind kind, Estimate before, Estimate after, String unit, boolean unstable,
			Options options, boolean gated) {
		Estimate factor = after.divide(before);
		double change = factor.value() - 1;
		double noise = factor.halfWidth();
		Verdict verdict;
		if (unstable) {
			verdict = Verdict.UNSTABLE;
		}
		else if (-change > options.threshold() && -change > noise) {
			verdict = Verdict.REGRESSION;
		}
		else if (change < 0) {
			verdict = (-change <= noise) ? Verdict.SLOWER_WITHIN_NOISE : Verdict.SLOWER_BELOW_THRESHOLD;
		}
		else {
			verdict = (change > noise) ? Verdict.FASTER : Verdict.FASTER_WITHIN_NOISE;
		}
		return new Line(name, kind, before, after, before.value(), after.value(), unit, change, noise, verdict, gated);
	}

	/** What is compared. */
	public enum Kind {

		/** The speed relative to the in-run baseline. */
		RATIO,

		/** The speed itself. */
		ABSOLUTE,

		/**
		 * The Lettuce path's speed relative to the Jedis path's, same run
		 * ({@link ClientPaths}).
		 */
		CLIENTS

	}

	/** Which comparisons can fail the gate. */
	public enum Gate {

		/**
		 * Ratios to the in-run baseline (and absolute speeds of classes without a
		 * baseline): the default.
		 */
		RATIO,

		/** Absolute speeds only. */
		ABSOLUTE,

		/** Both. */
		BOTH

	}

	/** The outcome of one comparison. */
	public enum Verdict {

		/** Slower by more than the threshold and the noise. */
		REGRESSION("REGRESSION"),

		/** Slower, but not by more than the noise. */
		SLOWER_WITHIN_NOISE("slower, within noise"),

		/** Slower beyond the noise, but by less than the threshold. */
		SLOWER_BELOW_THRESHOLD("slower, below threshold"),

		/** Faster, within noise. */
		FASTER_WITHIN_NOISE("faster, within noise"),

		/** Faster beyond the noise. */
		FASTER("faster"),

		/** A run's iterations spread too much to judge: reported, not gated. */
		UNSTABLE("UNSTABLE (not gated)"),

		/**
		 * Above a limit between two paths of one run by more than the 95% interval: fails
		 * the gate.
		 */
		OVER_LIMIT("OVER LIMIT"),

		/**
		 * Within a limit between two paths of one run, or above it by less than the 95%
		 * interval.
		 */
		WITHIN_LIMIT("within limit");

		private final String label;

		Verdict(String label) {
			this.label = label;
		}

		/**
		 * The label printed.
		 * @return the label
		 */
		public String label() {
			return this.label;
		}

	}

	/**
	 * One comparison.
	 *
	 * @param name the benchmark, mode and parameters (and the baseline for ratios)
	 * @param kind ratio or absolute
	 * @param before the baseline run's speed or ratio
	 * @param after the candidate run's speed or ratio
	 * @param beforeValue the baseline run's value as printed (the score for absolute
	 * lines)
	 * @param afterValue the candidate run's value as printed
	 * @param unit the unit of the printed values
	 * @param change the relative change of the speed (negative: slower)
	 * @param noise the 95% half-width of the change
	 * @param verdict the verdict
	 * @param gated whether a regression here fails the gate
	 */
	public record Line(String name, Kind kind, Estimate before, Estimate after, double beforeValue, double afterValue,
			String unit, double change, double noise, Verdict verdict, boolean gated) {

		Line withValues(double beforeValue, double afterValue) {
			return new Line(this.name, this.kind, this.before, this.after, beforeValue, afterValue, this.unit,
					this.change, this.noise, this.verdict, this.gated);
		}

		/**
		 * Whether this line fails the gate.
		 * @return a gated regression
		 */
		public boolean failsGate() {
			return this.gated && this.verdict == Verdict.REGRESSION;
		}

	}

	/**
	 * The comparisons, and what only one run has.
	 *
	 * @param lines the comparisons
	 * @param missing keys of the baseline that the candidate lacks
	 * @param added keys only the candidate has
	 * @param withoutBaseline keys whose class has an in-run baseline that is missing from
	 * either run: no ratio, so their absolute speed is gated
	 * @param clients the candidate run's rows "Lettuce path ÷ Jedis path"
	 * ({@link ClientPaths})
	 * @param clientNotes such rows skipped or not compared, and why
	 */
	public record Report(List<Line> lines, List<String> missing, List<String> added, List<String> withoutBaseline,
			List<ClientLine> clients, List<String> clientNotes) {

		/**
		 * Gated regressions: comparisons that fail the gate, and rows "Lettuce path ÷
		 * Jedis path" that fail it.
		 * @return how many fail the gate
		 */
		public long regressions() {
			return this.lines.stream().filter(Line::failsGate).count()
					+ this.clients.stream().filter(ClientLine::failsGate).count();
		}

		/**
		 * The line of a comparison.
		 * @param kind ratio or absolute
		 * @param nameStart the start of its name (benchmark, mode and parameters)
		 * @return the line
		 */
		public Optional<Line> find(Kind kind, String nameStart) {
			return this.lines.stream().filter((l) -> l.kind() == kind && l.name().startsWith(nameStart)).findFirst();
		}

		void print(PrintStream out, Options options) {
			out.printf(Locale.ROOT,
					"Gate: %s; regression = slower by more than %.0f%% and by more than the 95%% interval of the "
							+ "change; unstable (not gated) when a run's iterations spread by more than %.0f%%.%n"
							+ "Changes are of the speed (throughput, or 1/time): negative is slower.%n",
					switch (options.gate()) {
						case RATIO -> "ratios to the in-run baseline";
						case ABSOLUTE -> "absolute speeds";
						case BOTH -> "ratios to the in-run baseline and absolute speeds";
					}, options.threshold() * 100, options.unstable() * 100);
			out.println();
			out.println("Ratio to the in-run baseline (speed / baseline's speed, same run):");
			out.println();
			out.println("| benchmark | baseline run | candidate run | change (95%) | verdict |");
			out.println("|---|---|---|---|---|");
			for (Line line : this.lines) {
				if (line.kind() == Kind.RATIO) {
					out.printf(Locale.ROOT, "| %s | %.2fx ± %s | %.2fx ± %s | %s | %s |%n", line.name(),
							line.beforeValue(), percent(line.before().relativeHalfWidth()), line.afterValue(),
							percent(line.after().relativeHalfWidth()), change(line), label(line));
				}
			}
			out.println();
			out.println("Absolute (score, ± 95% from the iterations):");
			out.println();
			out.println("| benchmark | baseline run | candidate run | unit | change of speed (95%) | verdict |");
			out.println("|---|---|---|---|---|---|");
			for (Line line : this.lines) {
				if (line.kind() == Kind.ABSOLUTE) {
					out.printf(Locale.ROOT, "| %s | %s ± %s | %s ± %s | %s | %s | %s |%n", line.name(),
							number(line.beforeValue()), percent(line.before().relativeHalfWidth()),
							number(line.afterValue()), percent(line.after().relativeHalfWidth()), line.unit(),
							change(line), label(line));
				}
			}
			printClients(out);
			if (!this.withoutBaseline.isEmpty()) {
				out.println();
				out.println("WITHOUT IN-RUN BASELINE (no ratio; absolute speed gated, meaningful only between runs "
						+ "of one machine at the same load): " + String.join("; ", this.withoutBaseline));
			}
			if (!this.missing.isEmpty()) {
				out.println();
				out.println("Missing in the candidate (not compared): " + String.join("; ", this.missing));
			}
			if (!this.added.isEmpty()) {
				out.println();
				out.println("Only in the candidate (not compared): " + String.join("; ", this.added));
			}
			List<Line> all = new ArrayList<>(this.lines);
			this.clients.forEach((client) -> client.drift().ifPresent(all::add));
			long unstable = all.stream().filter((l) -> l.verdict() == Verdict.UNSTABLE).count();
			long ungated = all.stream().filter((l) -> !l.gated() && l.verdict() == Verdict.REGRESSION).count();
			out.println();
			out.printf(
					"Result: %d regression(s) gated, %d regression(s) reported but not gated, %d unstable, "
							+ "%d missing -> exit %d%n",
					regressions(), ungated, unstable, this.missing.size(), regressions() > 0 ? 1 : 0);
		}

		private void printClients(PrintStream out) {
			if (this.clients.isEmpty() && this.clientNotes.isEmpty()) {
				return;
			}
			out.println();
			out.println("Lettuce path ÷ Jedis path (Slotwise over Lettuce's time ÷ Slotwise over Jedis's, same run; "
					+ "issue #27: " + ClientPaths.limitText() + ", beyond the 95% interval, and no regression of "
					+ "the Lettuce path's relative speed; other rows not gated):");
			out.println();
			out.println("| benchmark | baseline run | candidate run | limit | change (95%) | verdict |");
			out.println("|---|---|---|---|---|---|");
			for (ClientLine client : this.clients) {
				Estimate after = client.pair().timeRatio();
				out.printf(Locale.ROOT, "| %s | %s | %.2fx ± %s | %s | %s | %s |%n", client.pair().name(), client
					.before()
					.map((b) -> String.format(Locale.ROOT, "%.2fx ± %s", b.value(), percent(b.relativeHalfWidth())))
					.orElse("-"), after.value(), percent(after.relativeHalfWidth()),
						client.limit()
							.map((v) -> String.format(Locale.ROOT, "%.2fx: %s", ClientPaths.LIMIT, v.label()))
							.orElse("-"),
						client.drift().map(Report::change).orElse("-"), client.drift().map(Report::label).orElse("-"));
			}
			for (String note : this.clientNotes) {
				out.println("Skipped: " + note);
			}
			for (ClientLine client : this.clients) {
				if (client.failsGate()) {
					out.println("FAILED: " + client.message());
				}
			}
		}

		private static String label(Line line) {
			return line.verdict().label()
					+ ((line.verdict() == Verdict.REGRESSION && !line.gated()) ? " (not gated)" : "");
		}

		private static String change(Line line) {
			return String.format(Locale.ROOT, "%+.1f%% ± %s", line.change() * 100,
					Double.isInfinite(line.noise()) ? "?" : String.format(Locale.ROOT, "%.1f%%", line.noise() * 100));
		}

		private static String percent(double relative) {
			return Double.isInfinite(relative) || Double.isNaN(relative) ? "?"
					: String.format(Locale.ROOT, "%.1f%%", relative * 100);
		}

		static String number(double value) {
			if (value >= 100) {
				return String.format(Locale.ROOT, "%,.0f", value);
			}
			return String.format(Locale.ROOT, "%.3g", value);
		}

	}

	/**
	 * A row "Lettuce path ÷ Jedis path" of the candidate run, against the limit and
	 * against the baseline run.
	 *
	 * @param pair the candidate run's row
	 * @param before the baseline run's time ratio, empty when it has no such row
	 * @param limit the verdict against the limit, empty for a row not held to it
	 * @param drift the change of the Lettuce path's relative speed, empty without a
	 * baseline row
	 */
	public record ClientLine(ClientPaths.Pair pair, Optional<Estimate> before, Optional<Verdict> limit,
			Optional<Line> drift) {

		/**
		 * Whether this row fails the gate.
		 * @return over the limit beyond its interval, or a gated regression
		 */
		public boolean failsGate() {
			return this.limit.orElse(Verdict.WITHIN_LIMIT) == Verdict.OVER_LIMIT
					|| this.drift.map(Line::failsGate).orElse(false);
		}

		/**
		 * Why this row fails the gate.
		 * @return a sentence naming the row
		 */
		String message() {
			Estimate after = this.pair.timeRatio();
			StringBuilder message = new StringBuilder("Lettuce path ÷ Jedis path, " + this.pair.name() + ":");
			if (this.limit.orElse(Verdict.WITHIN_LIMIT) == Verdict.OVER_LIMIT) {
				message.append(String.format(Locale.ROOT,
						" %.2fx ± %s, above the limit of %.2fx beyond its 95%% " + "interval;", after.value(),
						Report.percent(after.relativeHalfWidth()), ClientPaths.LIMIT));
			}
			if (this.drift.map(Line::failsGate).orElse(false)) {
				message.append(String.format(Locale.ROOT,
						" %.2fx -> %.2fx, the Lettuce path's speed relative to " + "the Jedis path's %s (REGRESSION);",
						this.before.orElseThrow().value(), after.value(), Report.change(this.drift.orElseThrow())));
			}
			return message.append(" issue #27").toString();
		}

	}

	/**
	 * The gate's settings.
	 *
	 * @param baseline the baseline file or folder
	 * @param candidate the candidate file or folder
	 * @param threshold slowdowns smaller than this fraction are never regressions
	 * @param unstable rows whose iterations spread more than this fraction are not gated
	 * @param gate which comparisons gate
	 */
	public record Options(Path baseline, Path candidate, double threshold, double unstable, Gate gate) {

		/**
		 * The defaults for two inputs.
		 * @param baseline the baseline
		 * @param candidate the candidate
		 * @return the options
		 */
		public static Options of(Path baseline, Path candidate) {
			return new Options(baseline, candidate, DEFAULT_THRESHOLD, DEFAULT_UNSTABLE, Gate.RATIO);
		}

		static Options parse(String[] args) {
			double threshold = DEFAULT_THRESHOLD;
			double unstable = DEFAULT_UNSTABLE;
			Gate gate = Gate.RATIO;
			List<Path> inputs = new ArrayList<>();
			for (int i = 0; i < args.length; i++) {
				switch (args[i]) {
					case "--threshold" -> threshold = fraction(args, ++i);
					case "--unstable" -> unstable = fraction(args, ++i);
					case "--gate" -> gate = gate(args, ++i);
					default -> {
						if (args[i].startsWith("--")) {
							throw new BadInputException("Unknown option " + args[i] + "; " + USAGE);
						}
						inputs.add(Path.of(args[i]));
					}
				}
			}
			if (inputs.size() != 2) {
				throw new BadInputException("Expected two inputs, got " + inputs.size() + "; " + USAGE);
			}
			return new Options(inputs.get(0), inputs.get(1), threshold, unstable, gate);
		}

		private static final String USAGE = "usage: compare.sh [--threshold 0.10] [--unstable 0.25] "
				+ "[--gate ratio|absolute|both] BASELINE CANDIDATE (JMH JSON files or run folders)";

		private static double fraction(String[] args, int i) {
			try {
				double value = Double.parseDouble(args[i]);
				if (value > 0) {
					return value;
				}
			}
			catch (RuntimeException ex) {
				// reported below
			}
			throw new BadInputException(args[i - 1] + " needs a positive fraction such as 0.10");
		}

		private static Gate gate(String[] args, int i) {
			if (i < args.length) {
				for (Gate gate : Gate.values()) {
					if (gate.name().equalsIgnoreCase(args[i])) {
						return gate;
					}
				}
			}
			throw new BadInputException("--gate needs ratio, absolute or both");
		}

	}

}
