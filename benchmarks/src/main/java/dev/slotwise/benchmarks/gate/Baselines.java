package dev.slotwise.benchmarks.gate;

import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The in-run baseline of every benchmark class: the variant without Slotwise (or without
 * the feature measured) that runs in the same JMH run on the same machine. A row's ratio
 * is its speed divided by the speed of the baseline row with the same other parameters,
 * so above 1 always means faster than the baseline.
 */
public final class Baselines {

	private static final Map<String, Map.Entry<String, String>> BY_CLASS = Map.ofEntries(
			Map.entry("MultiGetLatencyBenchmark", Map.entry("target", "sdr-lettuce")),
			Map.entry("MultiGetThroughputBenchmark", Map.entry("target", "sdr-lettuce")),
			Map.entry("ReactiveMultiGetLatencyBenchmark", Map.entry("target", "sdr-reactive")),
			Map.entry("ReactiveMultiGetThroughputBenchmark", Map.entry("target", "sdr-reactive")),
			Map.entry("PipelineBenchmark", Map.entry("target", "sdr-jedis-one-by-one")),
			Map.entry("PoolThroughputBenchmark", Map.entry("pool", "validate-on-borrow-and-return")),
			Map.entry("FirstRequestsBenchmark", Map.entry("start", "no-prewarm")),
			Map.entry("TopologyLookupBenchmark", Map.entry("provider", "sdr")),
			Map.entry("SlotPlanBenchmark", Map.entry("planner", "sort")),
			Map.entry("ClusterSizeBenchmark", Map.entry("target", "ideal")),
			Map.entry("KeyspaceBenchmark", Map.entry("target", "sdr-lettuce")),
			Map.entry("TransactionBenchmark", Map.entry("target", "standalone")),
			Map.entry("NearCacheBenchmark", Map.entry("near", "off")));

	private Baselines() {
	}

	/**
	 * The baseline parameter of a benchmark class.
	 * @param row any row of the class
	 * @return {@code param=value}, or empty when the class has no baseline
	 */
	public static Optional<Map.Entry<String, String>> of(Row row) {
		return Optional.ofNullable(BY_CLASS.get(row.className()));
	}

	/**
	 * Describes the baseline of a row's class.
	 * @param row the row
	 * @return e.g. {@code target=sdr-lettuce}, or {@code none}
	 */
	public static String describe(Row row) {
		return of(row).map((e) -> e.getKey() + "=" + e.getValue()).orElse("none");
	}

	/**
	 * Whether the row is itself the baseline of its class.
	 * @param row the row
	 * @return true for the baseline variant
	 */
	public static boolean isBaseline(Row row) {
		return of(row).map((e) -> e.getValue().equals(row.params().get(e.getKey()))).orElse(false);
	}

	/**
	 * The baseline row for a row from the same run.
	 * @param row the row
	 * @param run every row of the run
	 * @return the baseline row, empty when the row is a baseline or its baseline did not
	 * run
	 */
	public static Optional<Row> baselineRow(Row row, Collection<Row> run) {
		Optional<Map.Entry<String, String>> baseline = of(row);
		if (baseline.isEmpty() || isBaseline(row)) {
			return Optional.empty();
		}
		String param = baseline.get().getKey();
		Map<String, String> wanted = new TreeMap<>(row.params());
		wanted.put(param, baseline.get().getValue());
		return run.stream()
			.filter((other) -> other.benchmark().equals(row.benchmark()) && other.mode().equals(row.mode()))
			.filter((other) -> Objects.equals(other.params(), wanted))
			.findFirst();
	}

	/**
	 * The row's speed relative to its in-run baseline, with the uncertainty of both.
	 * @param row the row
	 * @param run every row of the run
	 * @return the ratio (above 1: faster than the baseline), empty without a baseline row
	 */
	public static Optional<Estimate> ratio(Row row, Collection<Row> run) {
		return baselineRow(row, run).map((base) -> Estimate.speedOf(row).divide(Estimate.speedOf(base)));
	}

}
