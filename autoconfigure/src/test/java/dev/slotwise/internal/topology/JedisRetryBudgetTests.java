package dev.slotwise.internal.topology;

import java.time.Duration;

import dev.slotwise.internal.compat.JedisInternals;
import dev.slotwise.internal.compat.JedisInternals.RetrySettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link JedisRetryBudget}: the timeout becomes Jedis's total retry duration,
 * unless the application's customizer, running between {@code apply} and {@code finish},
 * set Jedis's retry settings itself.
 */
@ExtendWith(OutputCaptureExtension.class)
class JedisRetryBudgetTests {

	private final JedisRetryBudget budget = new JedisRetryBudget(Duration.ofSeconds(1));

	@Test
	void threeQuartersOfTheTimeoutBecomeTheTotalRetryDuration(CapturedOutput output) {
		RedisClusterClient.Builder builder = RedisClusterClient.builder();
		this.budget.apply(builder);
		this.budget.finish(builder);
		assertThat(JedisInternals.retrySettings(builder)).isEqualTo(new RetrySettings(5, Duration.ofMillis(750)));
		assertThat(output).doesNotContain("JedisClientBuilderCustomizer");
	}

	@Test
	void applicationDurationWinsAndIsLogged(CapturedOutput output) {
		RedisClusterClient.Builder builder = RedisClusterClient.builder();
		this.budget.apply(builder);
		builder.maxTotalRetriesDuration(Duration.ofSeconds(7));
		this.budget.finish(builder);
		assertThat(JedisInternals.retrySettings(builder)).isEqualTo(new RetrySettings(5, Duration.ofSeconds(7)));
		assertThat(output).containsOnlyOnce("The application's JedisClientBuilderCustomizer set Jedis's cluster retry "
				+ "settings (maxAttempts 5, maxTotalRetriesDuration PT7S)");
	}

	@Test
	void applicationDurationEqualToOursStillWins(CapturedOutput output) {
		RedisClusterClient.Builder builder = RedisClusterClient.builder();
		this.budget.apply(builder);
		builder.maxTotalRetriesDuration(Duration.ofMillis(750));
		this.budget.finish(builder);
		assertThat(output).containsOnlyOnce("The application's JedisClientBuilderCustomizer");
	}

	@Test
	void applicationAttemptsAloneGetJedisDefaultDuration(CapturedOutput output) {
		RedisClusterClient.Builder builder = RedisClusterClient.builder();
		this.budget.apply(builder);
		builder.maxAttempts(9);
		this.budget.finish(builder);
		// null: Jedis derives the duration from the socket timeout and the application's
		// attempts when it builds.
		assertThat(JedisInternals.retrySettings(builder)).isEqualTo(new RetrySettings(9, null));
		assertThat(output).containsOnlyOnce("(maxAttempts 9, maxTotalRetriesDuration Jedis's default");
	}

	@Test
	void durationSetBeforeIsLeftAlone() {
		RedisClusterClient.Builder builder = RedisClusterClient.builder();
		builder.maxTotalRetriesDuration(Duration.ofSeconds(3));
		this.budget.apply(builder);
		this.budget.finish(builder);
		assertThat(JedisInternals.retrySettings(builder)).isEqualTo(new RetrySettings(5, Duration.ofSeconds(3)));
	}

	@Test
	void zeroTimeoutLeavesJedisAlone() {
		JedisRetryBudget none = new JedisRetryBudget(Duration.ZERO);
		RedisClusterClient.Builder builder = RedisClusterClient.builder();
		none.apply(builder);
		none.finish(builder);
		assertThat(JedisInternals.retrySettings(builder)).isEqualTo(new RetrySettings(5, null));
	}

	@Test
	void standaloneBuilderIsLeftAlone() {
		RedisClient.Builder builder = RedisClient.builder();
		this.budget.apply(builder);
		this.budget.finish(builder);
	}

	@Test
	void negativeTimeoutIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> new JedisRetryBudget(Duration.ofSeconds(-1)))
			.withMessageContaining("'timeout'");
	}

}
