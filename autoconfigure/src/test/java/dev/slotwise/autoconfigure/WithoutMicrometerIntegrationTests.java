package dev.slotwise.autoconfigure;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import dev.slotwise.test.jvm.ForkedJvm;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Micrometer and Actuator are optional: an application with neither starts with Slotwise
 * and gets the multi-key engine. The tests' own class path always has both, so the
 * application runs in a JVM of its own whose class path is the tests' minus those jars.
 * (Before the fix, such an application failed to start with
 * {@code ClassNotFoundException: io.micrometer.core.instrument.binder.MeterBinder}: the
 * auto-configuration asked for beans by the meters' own types.)
 */
@WithRedisCluster
class WithoutMicrometerIntegrationTests {

	/** Jars a plain {@code spring-boot-starter-data-redis} application does not have. */
	private static final List<String> ABSENT = List.of("micrometer-core", "micrometer-registry-",
			"spring-boot-micrometer-metrics", "spring-boot-actuator", "spring-boot-health");

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void startsAndRunsCrossSlotCallsWithoutMicrometer(String client, RedisTestCluster cluster) throws Exception {
		List<String> kept = new ArrayList<>();
		List<String> removed = new ArrayList<>();
		for (String entry : ForkedJvm.testClassPath()) {
			String name = Path.of(entry).getFileName().toString();
			(ABSENT.stream().anyMatch(name::startsWith) ? removed : kept).add(entry);
		}
		assertThat(removed).as("Micrometer jars found on the test class path").isNotEmpty();
		ForkedJvm.Result result = ForkedJvm.run(String.join(File.pathSeparator, kept), List.of(),
				WithoutMicrometerApplication.class, cluster.nodesProperty(), client);
		String printed = result.output();
		assertThat(result.exitValue()).as(printed).isZero();
		assertThat(printed).contains("OK");
		// The servers saw the engine's per-slot MGETs, not Spring Data Redis's per-key
		// GETs.
		assertThat(cluster.totalCommandCalls("mget")).isPositive();
		assertThat(cluster.totalCommandCalls("get")).isZero();
	}

}
