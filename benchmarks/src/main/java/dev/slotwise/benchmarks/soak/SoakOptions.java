package dev.slotwise.benchmarks.soak;

import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;

/**
 * The soak's options.
 *
 * @param minutes how long the workers run (the last fault starts at least 25 s before the
 * end)
 * @param seed the seed of the fault schedule and of every worker's operations
 * @param faults the fault kinds to draw from
 * @param clients {@code jedis}, {@code lettuce} or both
 * @param control whether each client also runs without Slotwise
 * @param workers workers per application
 * @param rate operations per second per worker, 0 for as fast as possible
 * @param minGap the shortest pause between faults, in seconds
 * @param maxGap the longest pause between faults, in seconds
 * @param out the results folder
 */
record SoakOptions(double minutes, long seed, List<String> faults, List<String> clients, boolean control, int workers,
		int rate, int minGap, int maxGap, Path out) {

	static final String USAGE = """
			Usage: src/soak.sh [--minutes M] [--seed S] [--faults kill,failover,pause,clientkill,migrate,sleep]
			                   [--client jedis|lettuce|both] [--no-control] [--workers N] [--rate OPS_PER_WORKER]
			                   [--gap MIN-MAX] [--out DIR]
			Defaults: 4 minutes, seed 1, every fault kind, both clients with their controls, 8 workers, 50 ops/s per
			worker, 10-20 s between faults, benchmarks/results/<UTC timestamp>-soak-<client>.""";

	static SoakOptions parse(String... args) {
		double minutes = 4;
		long seed = 1;
		List<String> faults = Faults.KINDS;
		List<String> clients = List.of("jedis", "lettuce");
		boolean control = true;
		int workers = 8;
		int rate = 50;
		int minGap = 10;
		int maxGap = 20;
		Path out = null;
		for (int i = 0; i < args.length; i++) {
			String arg = args[i];
			switch (arg) {
				case "--no-control" -> control = false;
				case "--minutes", "--seed", "--faults", "--client", "--workers", "--rate", "--gap", "--out" -> {
					if (i + 1 >= args.length) {
						throw new IllegalArgumentException(arg + " needs a value");
					}
					String value = args[++i];
					try {
						switch (arg) {
							case "--minutes" -> minutes = Double.parseDouble(value);
							case "--seed" -> seed = Long.parseLong(value);
							case "--faults" -> faults = faults(value);
							case "--client" ->
								clients = value.equals("both") ? List.of("jedis", "lettuce") : List.of(client(value));
							case "--workers" -> workers = Integer.parseInt(value);
							case "--rate" -> rate = Integer.parseInt(value);
							case "--gap" -> {
								String[] range = value.split("-");
								minGap = Integer.parseInt(range[0]);
								maxGap = Integer.parseInt(range[range.length - 1]);
							}
							default -> out = Path.of(value);
						}
					}
					catch (NumberFormatException ex) {
						throw new IllegalArgumentException(arg + " expects a number, got '" + value + "'");
					}
				}
				default -> throw new IllegalArgumentException("Unknown option '" + arg + "'");
			}
		}
		if (minutes <= 0.5) {
			throw new IllegalArgumentException("--minutes must be more than 0.5, was " + minutes);
		}
		if (workers < 1 || rate < 0 || minGap < 1 || maxGap < minGap) {
			throw new IllegalArgumentException(
					"--workers must be at least 1, --rate at least 0, --gap MIN-MAX with " + "1 <= MIN <= MAX");
		}
		if (out == null) {
			String stamp = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
				.withZone(ZoneOffset.UTC)
				.format(Instant.now());
			out = Path.of("benchmarks/results", stamp + "-soak-" + String.join("-", clients));
		}
		return new SoakOptions(minutes, seed, faults, clients, control, workers, rate, minGap, maxGap, out);
	}

	private static List<String> faults(String value) {
		if (value.equals("all")) {
			return Faults.KINDS;
		}
		List<String> kinds = Arrays.stream(value.split(","))
			.map(String::trim)
			.filter((kind) -> !kind.isEmpty())
			.toList();
		for (String kind : kinds) {
			if (!Faults.KINDS.contains(kind)) {
				throw new IllegalArgumentException("Unknown fault kind '" + kind + "'; known: " + Faults.KINDS);
			}
		}
		if (kinds.isEmpty()) {
			throw new IllegalArgumentException("--faults names no fault kind");
		}
		return kinds;
	}

	private static String client(String value) {
		if (!value.equals("jedis") && !value.equals("lettuce")) {
			throw new IllegalArgumentException("--client must be jedis, lettuce or both, was '" + value + "'");
		}
		return value;
	}

}
