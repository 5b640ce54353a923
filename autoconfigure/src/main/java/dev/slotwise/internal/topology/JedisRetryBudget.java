package dev.slotwise.internal.topology;

import java.time.Duration;

import dev.slotwise.internal.compat.JedisInternals;
import dev.slotwise.internal.compat.JedisInternals.RetrySettings;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.builders.AbstractClientBuilder;
import redis.clients.jedis.builders.ClusterClientBuilder;

/**
 * Bounds the total time Jedis's cluster executor spends on one command by the configured
 * timeout. Jedis retries a command that meets a failed node or a redirect up to
 * {@code maxAttempts} times, sleeping between attempts, until
 * {@code maxTotalRetriesDuration} has passed, which by default is the socket timeout
 * times the attempts: with {@code spring.data.redis.timeout=2s} a caller waits up to 10 s
 * while a master dies.
 * <p>
 * Jedis checks its deadline only between attempts, and its back-off sleeps up to the
 * deadline, after which it still renews its slot cache (over new connections to the seed
 * nodes) and may make one more attempt. So the duration set is three quarters of the
 * timeout: the last quarter is left for that renewal and that attempt, which fail fast
 * when a master is killed (a refused or reset connection), so that a command that cannot
 * succeed fails by the timeout.
 * <p>
 * {@link #apply(AbstractClientBuilder)} runs before the application's own client builder
 * customizer and sets the duration; {@link #finish(AbstractClientBuilder)} runs after it
 * and, when the application set the attempts or the duration itself, leaves the
 * application's settings alone (undoing only Slotwise's duration when the application set
 * only the attempts, so that Jedis's default follows them) and says so in one INFO line.
 */
public final class JedisRetryBudget {

	private static final Log logger = LogFactory.getLog(JedisRetryBudget.class);

	private final Duration timeout;

	private volatile @Nullable Applied applied;

	/**
	 * Creates a budget.
	 * @param timeout the configured command timeout, {@code spring.data.redis.timeout};
	 * zero (no timeout) leaves Jedis's retry settings alone
	 */
	public JedisRetryBudget(Duration timeout) {
		if (timeout == null || timeout.isNegative()) {
			throw new IllegalArgumentException("'timeout' must not be null or negative, was " + timeout);
		}
		this.timeout = timeout;
	}

	/**
	 * Sets the total retry duration of a cluster client builder to the timeout, unless
	 * something before set one.
	 * @param builder the builder, before the application's customizer ran
	 */
	public void apply(AbstractClientBuilder<?, ?> builder) {
		this.applied = null;
		if (!(builder instanceof ClusterClientBuilder<?> cluster) || this.timeout.isZero()) {
			return;
		}
		RetrySettings before = JedisInternals.retrySettings(cluster);
		if (before != null && before.maxTotalRetriesDuration() != null) {
			return;
		}
		// A new instance, so that an application setting an equal duration is still told
		// apart by identity.
		Duration ours = retryDuration(this.timeout);
		cluster.maxTotalRetriesDuration(ours);
		this.applied = new Applied(cluster, before, ours);
	}

	/**
	 * Steps back when the application set Jedis's retry settings itself.
	 * @param builder the builder, after the application's customizer ran
	 */
	public void finish(AbstractClientBuilder<?, ?> builder) {
		Applied applied = this.applied;
		this.applied = null;
		if (applied == null || applied.builder() != builder || applied.before() == null) {
			return;
		}
		RetrySettings after = JedisInternals.retrySettings(applied.builder());
		if (after == null) {
			return;
		}
		boolean ownDuration = after.maxTotalRetriesDuration() != applied.ours();
		boolean ownAttempts = after.maxAttempts() != applied.before().maxAttempts();
		if (!ownDuration && !ownAttempts) {
			return;
		}
		if (!ownDuration) {
			// Jedis's default duration follows the application's attempts.
			applied.builder().maxTotalRetriesDuration(null);
		}
		logger.info("The application's JedisClientBuilderCustomizer set Jedis's cluster retry settings (maxAttempts "
				+ after.maxAttempts() + ", maxTotalRetriesDuration "
				+ (ownDuration ? after.maxTotalRetriesDuration()
						: "Jedis's default, the socket timeout times the attempts")
				+ "): they apply, and Slotwise does not bound a command's retries by spring.data.redis.timeout ("
				+ this.timeout + ")");
	}

	/**
	 * Returns the total retry duration for a timeout: three quarters of it.
	 * @param timeout the timeout
	 * @return the duration, a new instance
	 */
	static Duration retryDuration(Duration timeout) {
		return Duration.ofNanos(timeout.toNanos() / 4 * 3);
	}

	/**
	 * Returns the timeout the retries are bounded by.
	 * @return the timeout
	 */
	public Duration timeout() {
		return this.timeout;
	}

	private record Applied(ClusterClientBuilder<?> builder, @Nullable RetrySettings before, Duration ours) {
	}

}
