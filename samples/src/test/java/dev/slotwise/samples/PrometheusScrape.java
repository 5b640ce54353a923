package dev.slotwise.samples;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Samples of a Prometheus text-format scrape.
 *
 * @param samples every sample line, in order
 */
record PrometheusScrape(List<Sample> samples) {

	private static final Pattern LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

	static PrometheusScrape parse(String text) {
		List<Sample> samples = new ArrayList<>();
		for (String line : text.lines().toList()) {
			if (line.isBlank() || line.startsWith("#")) {
				continue;
			}
			int brace = line.indexOf('{');
			int space = line.lastIndexOf(' ');
			String name = line.substring(0, (brace >= 0) ? brace : line.indexOf(' '));
			Map<String, String> labels = new LinkedHashMap<>();
			if (brace >= 0) {
				Matcher matcher = LABEL.matcher(line.substring(brace, line.lastIndexOf('}') + 1));
				while (matcher.find()) {
					labels.put(matcher.group(1), matcher.group(2));
				}
			}
			samples.add(new Sample(name, labels, Double.parseDouble(line.substring(space + 1))));
		}
		return new PrometheusScrape(samples);
	}

	/**
	 * Returns the names of the samples whose name starts with a prefix.
	 * @param prefix e.g. {@code slotwise_}
	 * @return the names, sorted
	 */
	Set<String> names(String prefix) {
		Set<String> names = new TreeSet<>();
		this.samples.stream().map(Sample::name).filter((name) -> name.startsWith(prefix)).forEach(names::add);
		return names;
	}

	/**
	 * Sums the values of the samples with a name and the given labels (NaN counts as 0).
	 * @param name the sample name
	 * @param labels label name and value pairs every counted sample must have
	 * @return the sum
	 */
	double sum(String name, String... labels) {
		return this.samples.stream()
			.filter((sample) -> sample.name().equals(name) && sample.has(labels))
			.mapToDouble((sample) -> Double.isNaN(sample.value()) ? 0 : sample.value())
			.sum();
	}

	/**
	 * One sample.
	 *
	 * @param name metric name as scraped
	 * @param labels its labels
	 * @param value its value
	 */
	record Sample(String name, Map<String, String> labels, double value) {

		boolean has(String... pairs) {
			for (int i = 0; i < pairs.length; i += 2) {
				if (!pairs[i + 1].equals(this.labels.get(pairs[i]))) {
					return false;
				}
			}
			return true;
		}

	}

}
