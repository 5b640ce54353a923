package dev.slotwise.benchmarks.gate;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The rows "Lettuce path ÷ Jedis path", derived from one run: Slotwise over Lettuce's
 * time divided by Slotwise over Jedis's time, for every benchmark and parameter set in
 * which both ran. {@link Summary} shows them; {@link Compare} holds the gated one to the
 * limit and judges every one's change between two runs like the ratios to the in-run
 * baseline.
 */
public final class ClientPaths {

	/*
	 * Issue #27: the Lettuce path went from about 1.1x to 1.15-1.27x the Jedis path's
	 * time (mostly the Jedis path getting faster) and the gate did not notice, because
	 * every other row is divided by Spring Data over Lettuce, which neither change moves.
	 * The target: the Lettuce path at most 1.1x the Jedis path's time in a cross-slot
	 * multiGet of 1,000 keys. Only that row (keys=1000) fails the gate; the others (other
	 * key counts, and the throughput benchmark's fixed 100 keys) are shown and judged,
	 * not gated: at 10 keys one round trip on Lettuce's event loop is the floor (1.24x in
	 * the full run of 2026-11-25), a cost of the client, not of Slotwise.
	 */
	static final Set<String> CLASSES = Set.of("MultiGetLatencyBenchmark", "MultiGetThroughputBenchmark");

	static final String PARAM = "target";

	static final String LETTUCE = "slotwise-lettuce";

	static final String JEDIS = "slotwise-jedis";

	static final Map.Entry<String, String> GATED = Map.entry("keys", "1000");

	static final double LIMIT = 1.10;

	private ClientPaths() {
	}

	/**
	 * The rows of a run, and the parameter sets that lack one of the two paths.
	 * @param run every row of the run
	 * @return the rows in the run's order, and a note per parameter set skipped
	 */
	public static Rows of(Collection<Row> run) {
		Map<String, Map<String, Row>> byName = new LinkedHashMap<>();
		for (Row row : run) {
			if (CLASSES.contains(row.className())) {
				byName.computeIfAbsent(name(row), (name) -> new TreeMap<>()).put(row.params().get(PARAM), row);
			}
		}
		List<Pair> pairs = new ArrayList<>();
		List<String> skipped = new ArrayList<>();
		byName.forEach((name, targets) -> {
			Row lettuce = targets.get(LETTUCE);
			Row jedis = targets.get(JEDIS);
			if (lettuce != null && jedis != null) {
				pairs.add(new Pair(name, lettuce, jedis));
			}
			else {
				List<String> missing = new ArrayList<>();
				if (lettuce == null) {
					missing.add(PARAM + "=" + LETTUCE);
				}
				if (jedis == null) {
					missing.add(PARAM + "=" + JEDIS);
				}
				skipped.add(name + " (no " + String.join(" and no ", missing) + ")");
			}
		});
		return new Rows(List.copyOf(pairs), List.copyOf(skipped));
	}

	/**
	 * The name of a row's pair: benchmark, mode and the parameters but the target.
	 * @param row a row of either path
	 * @return e.g. {@code MultiGetLatencyBenchmark.multiGet sample {keys=1000}}
	 */
	static String name(Row row) {
		Map<String, String> params = new TreeMap<>(row.params());
		params.remove(PARAM);
		return row.shortName() + " " + row.mode() + (params.isEmpty() ? "" : " " + params);
	}

	/**
	 * Describes the limit.
	 * @return e.g. {@code at most 1.10x at keys=1000}
	 */
	static String limitText() {
		return String.format(java.util.Locale.ROOT, "at most %.2fx at %s=%s", LIMIT, GATED.getKey(), GATED.getValue());
	}

	/**
	 * A run's rows.
	 *
	 * @param pairs the parameter sets with both paths
	 * @param skipped the parameter sets with one path only, each with what is missing
	 */
	public record Rows(List<Pair> pairs, List<String> skipped) {

		Optional<Pair> find(String name) {
			return this.pairs.stream().filter((pair) -> pair.name().equals(name)).findFirst();
		}

	}

	/**
	 * One row: both paths with the same other parameters, from one run.
	 *
	 * @param name benchmark, mode and parameters but the target
	 * @param lettuce Slotwise over Lettuce
	 * @param jedis Slotwise over Jedis
	 */
	public record Pair(String name, Row lettuce, Row jedis) {

		/**
		 * The Lettuce path's time divided by the Jedis path's (for throughput: the Jedis
		 * path's calls per second divided by the Lettuce path's), with its uncertainty.
		 * @return above 1: the Lettuce path is slower
		 */
		public Estimate timeRatio() {
			return Estimate.speedOf(this.jedis).divide(Estimate.speedOf(this.lettuce));
		}

		/**
		 * The inverse of {@link #timeRatio()}: a speed, so that a drop means the Lettuce
		 * path got slower against the Jedis path, as the gate's comparisons expect.
		 * @return the Lettuce path's speed relative to the Jedis path's
		 */
		Estimate relativeSpeed() {
			return Estimate.speedOf(this.lettuce).divide(Estimate.speedOf(this.jedis));
		}

		/**
		 * Whether this row fails the gate when over the limit or slower than before.
		 * @return the row at 1,000 keys
		 */
		public boolean gated() {
			return GATED.getValue().equals(this.lettuce.params().get(GATED.getKey()));
		}

		/**
		 * The row against the limit, when it is held to it.
		 * @param unstable the limit on the iterations' relative spread
		 * @return {@link Compare.Verdict#OVER_LIMIT} when the whole 95% interval is above
		 * the limit, {@link Compare.Verdict#UNSTABLE} when either path's iterations
		 * spread beyond {@code unstable}, otherwise {@link Compare.Verdict#WITHIN_LIMIT};
		 * empty for a row not gated
		 */
		Optional<Compare.Verdict> limit(double unstable) {
			if (!gated()) {
				return Optional.empty();
			}
			if (!(this.lettuce.relativeSpread() <= unstable && this.jedis.relativeSpread() <= unstable)) {
				return Optional.of(Compare.Verdict.UNSTABLE);
			}
			Estimate ratio = timeRatio();
			return Optional.of((ratio.value() - LIMIT > ratio.halfWidth()) ? Compare.Verdict.OVER_LIMIT
					: Compare.Verdict.WITHIN_LIMIT);
		}

	}

}
