package dev.slotwise.internal.routing;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Glob matching with Redis's rules.
 */
class GlobTests {

	@ParameterizedTest
	@CsvSource({ "*, anything, true", "things::*, things::1, true", "things::*, thing:1, false", "h?llo, hello, true",
			"h?llo, hllo, false", "h[ae]llo, hallo, true", "h[ae]llo, hillo, false", "h[^e]llo, hallo, true",
			"h[^e]llo, hello, false", "h[a-c]llo, hbllo, true", "h[a-c]llo, hdllo, false", "h\\*llo, h*llo, true",
			"h\\*llo, hallo, false", "a*b*c, aXXbYYc, true", "a*b*c, aXXbYY, false", "'', '', true",
			"abc, abcd, false" })
	void matchesAsRedisDoes(String pattern, String key, boolean matches) {
		assertThat(Glob.matches(pattern.getBytes(StandardCharsets.UTF_8), key.getBytes(StandardCharsets.UTF_8)))
			.isEqualTo(matches);
	}

}
