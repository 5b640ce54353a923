package dev.slotwise.connection;

import java.time.Duration;
import java.util.Optional;

import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocketFactory;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

import org.springframework.data.redis.connection.jedis.JedisClientBuilderCustomizer;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfigBuilderCustomizer;
import org.springframework.util.Assert;

/**
 * A {@link JedisClientConfiguration} that is another one plus a Jedis client builder
 * customizer that runs before the original's, and one that runs after it. Spring Data
 * Redis accepts a single client builder customizer, so this is how Slotwise adds its own
 * (the full pool configuration, Jedis's topology refresh period, its retry duration)
 * while the application's still runs after them and wins; the one after it only looks at
 * what the application set, so that a Slotwise default can step back from a setting the
 * application made.
 */
final class ComposedJedisClientConfiguration implements JedisClientConfiguration {

	private final JedisClientConfiguration delegate;

	private final JedisClientBuilderCustomizer clientCustomizer;

	/**
	 * Creates a configuration.
	 * @param delegate the configuration to extend
	 * @param first the customizer to run before the delegate's own
	 * @param last the customizer to run after the delegate's own
	 */
	ComposedJedisClientConfiguration(JedisClientConfiguration delegate, JedisClientBuilderCustomizer first,
			JedisClientBuilderCustomizer last) {
		Assert.notNull(delegate, "'delegate' must not be null");
		Assert.notNull(first, "'first' must not be null");
		Assert.notNull(last, "'last' must not be null");
		this.delegate = delegate;
		Optional<JedisClientBuilderCustomizer> original = delegate.getClientCustomizer();
		this.clientCustomizer = (builder) -> {
			first.customize(builder);
			original.ifPresent((customizer) -> customizer.customize(builder));
			last.customize(builder);
		};
	}

	@Override
	public Optional<JedisClientConfigBuilderCustomizer> getClientConfigCustomizer() {
		return this.delegate.getClientConfigCustomizer();
	}

	@Override
	public Optional<JedisClientBuilderCustomizer> getClientCustomizer() {
		return Optional.of(this.clientCustomizer);
	}

	@Override
	public boolean isUseSsl() {
		return this.delegate.isUseSsl();
	}

	@Override
	public Optional<SSLSocketFactory> getSslSocketFactory() {
		return this.delegate.getSslSocketFactory();
	}

	@Override
	public Optional<SSLParameters> getSslParameters() {
		return this.delegate.getSslParameters();
	}

	@Override
	public Optional<HostnameVerifier> getHostnameVerifier() {
		return this.delegate.getHostnameVerifier();
	}

	@Override
	public boolean isUsePooling() {
		return this.delegate.isUsePooling();
	}

	@Override
	public Optional<GenericObjectPoolConfig<?>> getPoolConfig() {
		return this.delegate.getPoolConfig();
	}

	@Override
	public Optional<String> getClientName() {
		return this.delegate.getClientName();
	}

	@Override
	public Duration getConnectTimeout() {
		return this.delegate.getConnectTimeout();
	}

	@Override
	public Duration getReadTimeout() {
		return this.delegate.getReadTimeout();
	}

}
