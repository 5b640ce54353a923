package dev.slotwise.benchmarks.soak;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link SoakOptions}: defaults and the options the brief asks for.
 */
class SoakOptionsTests {

	@Test
	void defaults() {
		SoakOptions options = SoakOptions.parse();
		assertThat(options.minutes()).isEqualTo(4);
		assertThat(options.faults()).isEqualTo(Faults.KINDS);
		assertThat(options.clients()).containsExactly("jedis", "lettuce");
		assertThat(options.control()).isTrue();
		assertThat(options.workers()).isEqualTo(8);
		assertThat(options.out().toString()).startsWith("benchmarks/results/").endsWith("-soak-jedis-lettuce");
	}

	@Test
	void everyOption() {
		SoakOptions options = SoakOptions.parse("--minutes", "2.5", "--seed", "7", "--faults", "kill,pause", "--client",
				"lettuce", "--no-control", "--workers", "2", "--rate", "0", "--gap", "8-12", "--out", "x");
		assertThat(options).isEqualTo(new SoakOptions(2.5, 7, List.of("kill", "pause"), List.of("lettuce"), false, 2, 0,
				8, 12, Path.of("x")));
	}

	@Test
	void anUnknownFaultIsNamed() {
		assertThatIllegalArgumentException().isThrownBy(() -> SoakOptions.parse("--faults", "kill,meteor"))
			.withMessageContaining("'meteor'");
	}

	@Test
	void anUnknownClientIsNamed() {
		assertThatIllegalArgumentException().isThrownBy(() -> SoakOptions.parse("--client", "redisson"))
			.withMessageContaining("redisson");
	}

}
