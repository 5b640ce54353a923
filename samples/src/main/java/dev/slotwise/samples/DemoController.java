package dev.slotwise.samples;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * What {@code src/demo.sh} drives: {@code GET /demo/multiget?keys=N&seconds=S&warmup=W}
 * reads N random products with one {@code multiGet} after another on one thread, for W
 * seconds of warm-up and then S seconds measured, and returns the latency percentiles and
 * calls per second of the measured part. A demonstration on one machine, not a benchmark:
 * the figures the project quotes come from JMH ({@code benchmarks/}).
 */
@RestController
@RequestMapping("/demo")
class DemoController {

	private static final int ID_SETS = 16;

	private final ProductCatalogue catalogue;

	DemoController(ProductCatalogue catalogue) {
		this.catalogue = catalogue;
	}

	@GetMapping("/multiget")
	Run multiGet(@RequestParam int keys, @RequestParam(defaultValue = "5") double seconds,
			@RequestParam(defaultValue = "2") double warmup) {
		int[][] idSets = new int[ID_SETS][];
		for (int i = 0; i < ID_SETS; i++) {
			idSets[i] = this.catalogue.randomIds(keys);
		}
		int warmupCalls = loop(idSets, warmup, null);
		long[] latencies = new long[1 << 20];
		int calls = loop(idSets, seconds, latencies);
		long[] measured = Arrays.copyOf(latencies, Math.min(calls, latencies.length));
		Arrays.sort(measured);
		return new Run(keys, warmupCalls, calls, calls / seconds, percentile(measured, 0.5),
				percentile(measured, 0.99));
	}

	private int loop(int[][] idSets, double seconds, long @Nullable [] latencies) {
		long end = System.nanoTime() + (long) (seconds * 1e9);
		int calls = 0;
		while (System.nanoTime() < end) {
			long start = System.nanoTime();
			this.catalogue.get(idSets[calls % ID_SETS]);
			if (latencies != null && calls < latencies.length) {
				latencies[calls] = System.nanoTime() - start;
			}
			calls++;
		}
		return calls;
	}

	private static double percentile(long[] sorted, double quantile) {
		if (sorted.length == 0) {
			return Double.NaN;
		}
		return sorted[(int) Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))] / 1_000.0;
	}

	/**
	 * One measured run.
	 *
	 * @param keys keys per {@code multiGet}
	 * @param warmupCalls calls made during the warm-up
	 * @param calls calls measured
	 * @param callsPerSecond calls per second on one thread
	 * @param p50Micros median latency
	 * @param p99Micros 99th percentile latency
	 */
	record Run(int keys, int warmupCalls, int calls, double callsPerSecond, double p50Micros, double p99Micros) {
	}

}
