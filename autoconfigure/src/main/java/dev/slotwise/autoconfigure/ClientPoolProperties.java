package dev.slotwise.autoconfigure;

import java.time.Duration;
import java.util.Map;

import dev.slotwise.internal.pool.PoolSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.validation.ValidationBindHandler;
import org.springframework.core.env.Environment;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Spring Boot's pool properties of one client ({@code spring.data.redis.jedis.pool.*} or
 * {@code spring.data.redis.lettuce.pool.*}) as the application set them, and Slotwise's defaults for those it left
 * unset. These defaults live here and nowhere else; Slotwise has no property of its own for a setting Spring Boot
 * already has.
 * <p>
 * Bound and validated the way Spring Boot binds {@code @ConfigurationProperties}: a {@link ValidationBindHandler}
 * applies this object as its own {@link Validator}, so an invalid value fails start-up exactly like an invalid
 * {@code slotwise.*} value, with a {@code BindValidationException} naming the property.
 */
final class ClientPoolProperties implements Validator {

	/** Slotwise's default for {@code min-idle}: a few connections ready per node. */
	static final int DEFAULT_MIN_IDLE = 4;

	/** Slotwise's default for {@code max-wait}: an exhausted pool fails a caller instead of hanging it. */
	static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(2);

	/** Slotwise's default for {@code time-between-eviction-runs}: test-while-idle does nothing without it. */
	static final Duration DEFAULT_TIME_BETWEEN_EVICTION_RUNS = Duration.ofSeconds(30);

	private final String prefix;

	private @Nullable Boolean enabled;

	private @Nullable Integer maxActive;

	private @Nullable Integer maxIdle;

	private @Nullable Integer minIdle;

	private @Nullable Duration maxWait;

	private @Nullable Duration timeBetweenEvictionRuns;

	private ClientPoolProperties(String client) {
		this.prefix = "spring.data.redis." + client + ".pool";
	}

	/**
	 * Binds and validates the pool properties of a client.
	 * @param environment the environment
	 * @param client {@code jedis} or {@code lettuce}
	 * @return the bound properties
	 * @throws org.springframework.boot.context.properties.bind.BindException when a value is invalid, caused by a
	 * {@code BindValidationException} naming the property
	 */
	static ClientPoolProperties bind(Environment environment, String client) {
		ClientPoolProperties properties = new ClientPoolProperties(client);
		Binder.get(environment)
			.bind(properties.prefix, Bindable.ofInstance(properties), new ValidationBindHandler(properties));
		return properties;
	}

	/**
	 * Returns Slotwise's default for {@code max-active}: eight connections per processor, at least 16, so that the
	 * Jedis multi-key executor (4 threads per processor) and as many application threads can each hold one.
	 * @return the default maximum connections per node
	 */
	static int defaultMaxActive() {
		return Math.max(16, 8 * Runtime.getRuntime().availableProcessors());
	}

	/**
	 * Returns whether the application turned pooling off with {@code spring.data.redis.<client>.pool.enabled=false}.
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
		return (this.minIdle != null) ? this.minIdle : DEFAULT_MIN_IDLE;
	}

	Duration effectiveMaxWait() {
		return (this.maxWait != null) ? this.maxWait : DEFAULT_MAX_WAIT;
	}

	Duration effectiveTimeBetweenEvictionRuns() {
		return (this.timeBetweenEvictionRuns != null) ? this.timeBetweenEvictionRuns
				: DEFAULT_TIME_BETWEEN_EVICTION_RUNS;
	}

	/**
	 * Returns the effective settings: these properties with Slotwise's defaults, plus what only Slotwise has.
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

	@Override
	public boolean supports(Class<?> type) {
		return ClientPoolProperties.class == type;
	}

	@Override
	public void validate(Object target, Errors errors) {
		ClientPoolProperties properties = (ClientPoolProperties) target;
		if (properties.poolingDisabled()) {
			return;
		}
		PropertyChecks checks = new PropertyChecks(errors, properties.prefix);
		int maxActive = properties.effectiveMaxActive();
		int maxIdle = properties.effectiveMaxIdle();
		int minIdle = properties.effectiveMinIdle();
		checks.atLeast("max-active", maxActive, 0);
		if (maxActive == 0) {
			checks.reject("max-active", "must be positive: a pool of at most 0 connections can serve no command");
		}
		checks.atLeast("max-idle", maxIdle, 0);
		checks.atLeast("min-idle", minIdle, 0);
		if (minIdle > maxActive) {
			rejectAboveLimit(checks, properties.minIdle != null, minIdle, "max-active", maxActive);
		}
		else if (minIdle > maxIdle) {
			rejectAboveLimit(checks, properties.minIdle != null, minIdle, "max-idle", maxIdle);
		}
	}

	private static void rejectAboveLimit(PropertyChecks checks, boolean minIdleSet, int minIdle, String limit,
			int limitValue) {
		if (minIdleSet) {
			checks.reject("min-idle", "(" + minIdle + ") must not be greater than '" + checks.name(limit) + "' ("
					+ limitValue + ")");
		}
		else {
			// The application set only the limit: name it, and the default it falls below.
			checks.reject(limit, "(" + limitValue + ") must not be less than '" + checks.name("min-idle")
					+ "', whose default is " + minIdle + "; set both");
		}
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
