package dev.slotwise.benchmarks.gate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The run summary and charts from a synthetic run folder (headless, no Redis).
 */
class SummaryTests {

	@TempDir
	Path run;

	@Test
	void writesTheSummaryWithRatiosAndTheCharts() throws IOException {
		System.setProperty("java.awt.headless", "true");
		String latency = "MultiGetLatencyBenchmark.multiGet";
		Jmh jmh = new Jmh();
		for (String keys : new String[] { "10", "1000" }) {
			int scale = Integer.parseInt(keys);
			jmh.addSample(latency, Map.of("keys", keys, "target", "sdr-lettuce"), 20.0 * scale, 21.0 * scale,
					19.0 * scale)
				.addSample(latency, Map.of("keys", keys, "target", "slotwise-jedis"), 5.0 * scale, 5.1 * scale,
						4.9 * scale);
		}
		// The Lettuce path at 1,000 keys only: the row at 10 keys is skipped.
		jmh.addSample(latency, Map.of("keys", "1000", "target", "slotwise-lettuce"), 6000, 6100, 5900);
		jmh.write(this.run.resolve("multiget-latency.json"));
		new Jmh().add("PipelineBenchmark.batch", "thrpt", Map.of("target", "sdr-jedis-one-by-one"), 25, 26, 24)
			.add("PipelineBenchmark.batch", "thrpt", Map.of("target", "slotwise-jedis-pipelined"), 300, 310, 290)
			.write(this.run.resolve("pipeline.json"));
		Files.writeString(this.run.resolve("pool-throughput.json"), "");
		Files.writeString(this.run.resolve("machine.json"), "{\"cores\": 2, \"cpu\": \"test\", \"git_commit\": \"abc\","
				+ " \"git_dirty\": true, \"date\": \"2026-11-23T09:00:00Z\"}");

		Summary.main(new String[] { this.run.toString() });

		String summary = Files.readString(this.run.resolve("summary.md"));
		assertThat(summary).contains("Machine: 2 cores (test)")
			.contains("with uncommitted changes")
			.contains("| keys=1000, target=slotwise-jedis | 5,000 |")
			.contains("4.00x ±")
			.contains("| target=slotwise-jedis-pipelined | 300 |")
			.contains("12.00x ±")
			.contains("No result: every trial failed (see `logs/pool-throughput.log`)")
			.contains("## Lettuce path ÷ Jedis path")
			.contains("| MultiGetLatencyBenchmark.multiGet sample {keys=1000} | 1.20x | ")
			.contains("| 1.10x: OVER LIMIT |")
			.contains("Skipped: MultiGetLatencyBenchmark.multiGet sample {keys=10} (no target=slotwise-lettuce)");
		for (String chart : new String[] { "multiget-latency.png", "pipeline.png" }) {
			byte[] png = Files.readAllBytes(this.run.resolve(chart));
			assertThat(png).hasSizeGreaterThan(1000);
			assertThat(new String(png, 1, 3, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("PNG");
		}
	}

}
