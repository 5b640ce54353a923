package dev.slotwise.test.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LoopbackPorts}.
 */
class LoopbackPortsTests {

	@Test
	void blocksLieOutsideTheEphemeralRangeAndAwayFrom6379() {
		List<Integer> starts = LoopbackPorts.blockStarts(new int[] { 32_768, 60_999 });
		assertThat(starts).isNotEmpty().allSatisfy((start) -> {
			int last = start + LoopbackPorts.BLOCK_SIZE - 1;
			assertThat(last < 32_768 || start > 60_999).as("block %d-%d", start, last).isTrue();
			assertThat(6379 >= start && 6379 <= last).as("6379 in block %d", start).isFalse();
			assertThat(last).isLessThanOrEqualTo(65_535);
		});
		assertThat(starts).contains(20_000, 32_768 - LoopbackPorts.BLOCK_SIZE);
	}

	@Test
	void readsTheKernelsEphemeralRange() throws IOException {
		Path file = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
		Assumptions.assumeTrue(Files.isReadable(file), "no " + file + " on this machine");
		String[] expected = Files.readAllLines(file).get(0).trim().split("\\s+");
		assertThat(LoopbackPorts.ephemeralRange()).containsExactly(Integer.parseInt(expected[0]),
				Integer.parseInt(expected[1]));
	}

	@Test
	void aRangeCoveringEveryCandidateLeavesNoBlock() {
		assertThat(LoopbackPorts.blockStarts(new int[] { 1_024, 65_535 })).isEmpty();
	}

	@Test
	void portsAreOutsideTheMachinesEphemeralRangeAndNeverHandedOutTwice() {
		int[] ephemeral = LoopbackPorts.ephemeralRange();
		Set<Integer> seen = new HashSet<>();
		try (LoopbackPorts first = LoopbackPorts.claim(); LoopbackPorts second = LoopbackPorts.claim()) {
			for (int i = 0; i < 2 * LoopbackPorts.BLOCK_SIZE; i++) {
				for (int port : List.of(first.next(), second.next())) {
					assertThat(port < ephemeral[0] || port > ephemeral[1]).as("port %d", port).isTrue();
					assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
				}
			}
		}
	}

	@Test
	void anotherJvmCannotClaimABlockThisJvmHoldsUntilItIsReleased() throws IOException, InterruptedException {
		int start;
		try (LoopbackPorts ports = LoopbackPorts.claim()) {
			start = LoopbackPorts.blockOf(ports.next());
			assertThat(probe(start)).isEqualTo("held");
		}
		assertThat(probe(start)).isEqualTo("unclaimed");
	}

	/**
	 * Asks another JVM whether it can lock a block, as a second test run on the machine
	 * would.
	 */
	private static String probe(int start) throws IOException, InterruptedException {
		Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
				System.getProperty("java.class.path"), LoopbackPortsProbe.class.getName(), Integer.toString(start))
			.redirectErrorStream(true)
			.start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(1, TimeUnit.MINUTES)).isTrue();
		assertThat(process.exitValue()).as(output).isZero();
		return output.trim();
	}

	/** Runs in the forked JVM: tells whether a block's lock can be taken there. */
	static final class LoopbackPortsProbe {

		public static void main(String[] args) {
			System.out.println(LoopbackPorts.isUnclaimed(Integer.parseInt(args[0])) ? "unclaimed" : "held");
		}

	}

}
