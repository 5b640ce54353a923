package dev.slotwise.autoconfigure;

import java.time.Duration;
import java.util.Map;

import dev.slotwise.internal.pool.PoolSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Spring Boot's pool properties of one client ({@code spring.data.redis.jedis.pool.*} or
 * {@code spring.data.redis.lettuce.pool.*}) as the application set them, and Slotwise's
 * defaults for those it left unset. These defaults live here and nowhere else; Slotwise
 * has no property of its own for a setting Spring Boot already has.
 * <p>
 * A default never fights what the application set: every combination Spring Boot starts
 * with starts with Slotwise too. Values are not validated beyond what Spring Boot's
 * binder checks (Spring Boot and commons-pool accept any number: negative limits mean
 * unlimited, a minimum above a maximum is capped); a default that would conflict with an
 * explicit limit yields to it (e.g. {@code min-idle} defaults to
 * {@code min(4, max-idle, max-active)}), which {@link #yieldedDefault()} describes in one
 * line naming both properties. The pool advisor reviews the outcome.
 */
final class ClientPoolProperties {

	/**
	 * Slotwise's default for {@code min-idle} over Jedis: a few connections ready per
	 * node.
	 */
	static final int DEFAULT_MIN_IDLE = 4;

	/**
	 * Slotwise's default for {@code min-idle} over Lettuce, Spring Boot's own: Lettuce's
	 * pool serves only dedicated connections (blocking commands, transactions), which an
	 * application borrows rarely, while every other command shares one connection per
	 * node.
	 */
	static final int DEFAULT_LETTUCE_MIN_IDLE = 0;

	/**
	 * Slotwise's default for {@code max-wait}: an exhausted pool fails a caller instead
	 * of hanging it.
	 */
	static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(2);

	/**
	 * Slotwise's default for {@code time-between-eviction-runs}: test-while-idle does
	 * nothing without it.
	 */
	static final Duration DEFAULT_TIME_BETWEEN_EVICTION_RUNS = Duration.ofSeconds(30);

	private final String prefix;

	private final int defaultMinIdle;

	private @Nullable Boolean enabled;

	private @Nullable Integer maxActive;

	private @Nullable Integer maxIdle;

	private @Nullable Integer minIdle;

	private @Nullable Duration maxWait;

	private @Nullable Duration timeBetweenEvictionRuns;

	private ClientPoolProperties(String client) {
		this.prefix = "spring.data.redis." + client + ".pool";
		this.defaultMinIdle = SlotwisePoolConfiguration.LETTUCE.equals(client) ? DEFAULT_LETTUCE_MIN_IDLE
				: DEFAULT_MIN_IDLE;
	}

	/**
	 * Binds the pool properties of a client as Spring Boot binds them.
	 * @param environment the environment
	 * @param client {@code jedis} or {@code lettuce}
	 * @return the bound properties
	 */
	static ClientPoolProperties bind(Environment environment, String client) {
		ClientPoolProperties properties = new ClientPoolProperties(client);
		Binder.get(environment).bind(properties.prefix, Bindable.ofInstance(properties));
		return properties;
	}

	/**
	 * Returns Slotwise's default for {@code max-active}: eight connections per processor,
	 * at least 16, so that the Jedis multi-key executor (4 threads per processor) and as
	 * many application threads can each hold one.
	 * @return the default maximum connections per node
	 */
	static int defaultMaxActive() {
		return Math.max(16, 8 * Runtime.getRuntime().availableProcessors());
	}

	/**
	 * Returns whether the application turned pooling off with
	 * {@code spring.data.redis.<client>.pool.enabled=false}.
	 * @return whether pooling is off
	 */
	boolean poolingDisabled() {
		return Boolean.FALSE.equals(this.enabled);
	}

	int effectiveMaxActive() {
		return (this.maxActive != null) ? this.maxActive : defaultMaxActive();
	}

	int effectiveMaxIdle() {
		// A burst should not close connections only to reopen them a moment later.
		return (this.maxIdle != null) ? this.maxIdle : effectiveMaxActive();
	}

	int effectiveMinIdle() {
		if (this.minIdle != null) {
			return this.minIdle;
		}
		// Negative limits are unlimited in commons-pool.
		int limit = this.defaultMinIdle;
		if (this.maxIdle != null && this.maxIdle >= 0) {
			limit = Math.min(limit, this.maxIdle);
		}
		if (this.maxActive != null && this.maxActive >= 0) {
			limit = Math.min(limit, this.maxActive);
		}
		return limit;
	}

	/**
	 * Describes the default that yielded to an explicit setting, naming both properties.
	 * @return the description, or {@code null} when every default applies as documented
	 */
	@Nullable String yieldedDefault() {
		if (poolingDisabled() || this.minIdle != null || effectiveMinIdle() == this.defaultMinIdle) {
			return null;
		}
		boolean byMaxIdle = this.maxIdle != null && this.maxIdle == effectiveMinIdle();
		String limit = byMaxIdle ? name("max-idle") + "=" + this.maxIdle : name("max-active") + "=" + this.maxActive;
		return "Slotwise's default for " + name("min-idle") + " (" + this.defaultMinIdle + ") yields to " + limit + ": "
				+ name("min-idle") + " is " + effectiveMinIdle() + "; set it to choose another value";
	}

	Duration effectiveMaxWait() {
		return (this.maxWait != null) ? this.maxWait : DEFAULT_MAX_WAIT;
	}

	Duration effectiveTimeBetweenEvictionRuns() {
		return (this.timeBetweenEvictionRuns != null) ? this.timeBetweenEvictionRuns
				: DEFAULT_TIME_BETWEEN_EVICTION_RUNS;
	}

	/**
	 * Returns the effective settings: these properties with Slotwise's defaults, plus
	 * what only Slotwise has.
	 * @param pool Slotwise's pool properties
	 * @return the settings, each with the property it comes from
	 */
	PoolSettings toSettings(SlotwiseProperties.Pool pool) {
		String slotwise = SlotwiseProperties.PREFIX + ".pool.";
		Map<String, String> origins = Map.of("maxTotal", name("max-active"), "maxIdle", name("max-idle"), "minIdle",
				name("min-idle"), "maxWait", name("max-wait"), "timeBetweenEvictionRuns",
				name("time-between-eviction-runs"), "testOnBorrow", slotwise + "test-on-borrow", "testOnReturn",
				slotwise + "test-on-return", "testWhileIdle", slotwise + "test-while-idle", "softMinEvictableIdleTime",
				slotwise + "soft-min-evictable-idle-time");
		return new PoolSettings(effectiveMaxActive(), effectiveMaxIdle(), effectiveMinIdle(), effectiveMaxWait(),
				pool.isTestOnBorrow(), pool.isTestOnReturn(), pool.isTestWhileIdle(),
				effectiveTimeBetweenEvictionRuns(), pool.getSoftMinEvictableIdleTime(), pool.isJmxEnabled(), origins);
	}

	private String name(String property) {
		return this.prefix + "." + property;
	}

	// Bound by Spring Boot's binder.

	public @Nullable Boolean getEnabled() {
		return this.enabled;
	}

	public void setEnabled(@Nullable Boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable Integer getMaxActive() {
		return this.maxActive;
	}

	public void setMaxActive(@Nullable Integer maxActive) {
		this.maxActive = maxActive;
	}

	public @Nullable Integer getMaxIdle() {
		return this.maxIdle;
	}

	public void setMaxIdle(@Nullable Integer maxIdle) {
		this.maxIdle = maxIdle;
	}

	public @Nullable Integer getMinIdle() {
		return this.minIdle;
	}

	public void setMinIdle(@Nullable Integer minIdle) {
		this.minIdle = minIdle;
	}

	public @Nullable Duration getMaxWait() {
		return this.maxWait;
	}

	public void setMaxWait(@Nullable Duration maxWait) {
		this.maxWait = maxWait;
	}

	public @Nullable Duration getTimeBetweenEvictionRuns() {
		return this.timeBetweenEvictionRuns;
	}

	public void setTimeBetweenEvictionRuns(@Nullable Duration timeBetweenEvictionRuns) {
		this.timeBetweenEvictionRuns = timeBetweenEvictionRuns;
	}

}
