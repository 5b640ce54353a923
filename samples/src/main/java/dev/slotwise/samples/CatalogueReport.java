package dev.slotwise.samples;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.IntStream;

/**
 * What one run of the sample observed: values read back and the servers' own counters.
 *
 * @param connectionFactory the class of the connection factory in use
 * @param keys the number of keys written and read
 * @param valuesMatching how many values read back equal what was written
 * @param multiGetMillis how long the {@code multiGet} of all keys took
 * @param serverCommands calls per command summed over all masters since the run started
 */
public record CatalogueReport(String connectionFactory, int keys, long valuesMatching, double multiGetMillis,
		Map<String, Long> serverCommands) {

	/**
	 * Sums {@code INFO commandstats} sections into calls per command.
	 * @param sections one {@code commandstats} section per node
	 * @return calls per command
	 */
	static Map<String, Long> sumCommandStats(List<Properties> sections) {
		Map<String, Long> calls = new TreeMap<>();
		for (Properties section : sections) {
			for (String name : section.stringPropertyNames()) {
				if (name.startsWith("cmdstat_")) {
					String value = section.getProperty(name);
					long count = Long.parseLong(value.substring("calls=".length(), value.indexOf(',')));
					calls.merge(name.substring("cmdstat_".length()), count, Long::sum);
				}
			}
		}
		return calls;
	}

	static List<String> productKeys(int count) {
		return IntStream.range(0, count).mapToObj((i) -> "product:" + i).toList();
	}

	/**
	 * Renders the report for the console.
	 * @return the lines to print
	 */
	String render() {
		StringBuilder out = new StringBuilder();
		out.append("Connection factory : ").append(this.connectionFactory).append('\n');
		out.append("Keys written, read : ").append(this.keys).append(", ").append(this.valuesMatching)
			.append(" read back correctly\n");
		out.append(String.format("multiGet of all    : %.2f ms%n", this.multiGetMillis));
		out.append("Commands the masters served (INFO commandstats):\n");
		this.serverCommands.forEach((command, calls) -> out.append(String.format("  %-22s %d%n", command, calls)));
		return out.toString();
	}

}
