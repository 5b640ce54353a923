package dev.slotwise.autoconfigure;

import java.time.Duration;

import dev.slotwise.internal.multikey.MultiKeySettings;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The multi-key engine's timeout never exceeds the application's command timeout
 * ({@code spring.data.redis.timeout}) when one is set. No Redis is contacted.
 */
class SlotwiseMultiKeyTimeoutTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class));

	@Test
	void commandTimeoutShorterThanTheEngineTimeoutCapsIt() {
		this.runner.withPropertyValues("spring.data.redis.timeout=2s")
			.run((context) -> assertThat(context.getBean(MultiKeySettings.class).timeout())
				.isEqualTo(Duration.ofSeconds(2)));
	}

	@Test
	void commandTimeoutInMillisecondsCapsTheEngineTimeout() {
		this.runner.withPropertyValues("spring.data.redis.timeout=750")
			.run((context) -> assertThat(context.getBean(MultiKeySettings.class).timeout())
				.isEqualTo(Duration.ofMillis(750)));
	}

	@Test
	void commandTimeoutLongerThanTheEngineTimeoutLeavesIt() {
		this.runner.withPropertyValues("spring.data.redis.timeout=30s", "slotwise.multikey.timeout=3s")
			.run((context) -> assertThat(context.getBean(MultiKeySettings.class).timeout())
				.isEqualTo(Duration.ofSeconds(3)));
	}

	@Test
	void withoutCommandTimeoutTheEngineTimeoutApplies() {
		this.runner.run((context) -> assertThat(context.getBean(MultiKeySettings.class).timeout())
			.isEqualTo(new SlotwiseProperties().getMultikey().getTimeout()));
	}

}
