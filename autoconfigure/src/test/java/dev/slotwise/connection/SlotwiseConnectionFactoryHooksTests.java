package dev.slotwise.connection;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The contribution hooks of both Slotwise connection factories: a hook only one
 * contributor may fill fails naming both contributors when a second claims it. No factory
 * is started, no Redis contacted.
 */
class SlotwiseConnectionFactoryHooksTests {

	private static final RedisClusterConfiguration CLUSTER = new RedisClusterConfiguration(List.of("127.0.0.1:1"));

	private final SlotwiseJedisConnectionFactory jedis = new SlotwiseJedisConnectionFactory(CLUSTER,
			JedisClientConfiguration.defaultConfiguration());

	private final SlotwiseLettuceConnectionFactory lettuce = new SlotwiseLettuceConnectionFactory(CLUSTER,
			LettuceClientConfiguration.defaultConfiguration());

	@Test
	void jedisTopologyProviderHasOneContributor() {
		this.jedis.claimTopologyProvider("first", (client) -> null);
		assertThatIllegalStateException().isThrownBy(() -> this.jedis.claimTopologyProvider("second", (client) -> null))
			.withMessageContaining("'second' cannot provide the topology provider of the Jedis connection factory")
			.withMessageContaining("'first' already provides it");
	}

	@Test
	void jedisClusterConnectionsHaveOneContributor() {
		this.jedis.claimClusterConnections("first", (client, executor, topology) -> null);
		assertThatIllegalStateException()
			.isThrownBy(() -> this.jedis.claimClusterConnections("second", (client, executor, topology) -> null))
			.withMessageContaining("'second' cannot provide the cluster connections of the Jedis connection factory")
			.withMessageContaining("'first' already provides it");
	}

	@Test
	void jedisClusterConnectionsBeforeStartFailAsSpringDataRedisDoes() {
		SlotwiseJedisConnectionFactory plain = new SlotwiseJedisConnectionFactory(CLUSTER,
				JedisClientConfiguration.defaultConfiguration());
		this.jedis.claimClusterConnections("first", (client, executor, topology) -> {
			throw new AssertionError("created before the factory started");
		});
		String expected = catchThrowable(plain::getClusterConnection).getMessage();
		assertThatIllegalStateException().isThrownBy(this.jedis::getClusterConnection).withMessage(expected);
	}

	@Test
	void jedisOrderedHooksTakeEveryContributor() {
		assertThatNoException().isThrownBy(() -> {
			this.jedis.addClientBuilderCustomizer("first", (builder) -> {
			});
			this.jedis.addClientBuilderCustomizer("second", (builder) -> {
			});
			this.jedis.addClientStartedListener("first", (client) -> {
			});
			this.jedis.addClientStartedListener("second", (client) -> {
			});
		});
	}

	@Test
	void lettuceClusterClientHasOneContributor() {
		this.lettuce.claimClusterClient("first", (resources, uris, options) -> null);
		assertThatIllegalStateException()
			.isThrownBy(() -> this.lettuce.claimClusterClient("second", (resources, uris, options) -> null))
			.withMessageContaining("'second' cannot provide the cluster client of the Lettuce connection factory")
			.withMessageContaining("'first' already provides it");
	}

	@Test
	void lettuceTopologyProviderHasOneContributor() {
		this.lettuce.claimTopologyProvider("first", (provider) -> provider);
		assertThatIllegalStateException()
			.isThrownBy(() -> this.lettuce.claimTopologyProvider("second", (provider) -> provider))
			.withMessageContaining("'second' cannot provide the topology provider of the Lettuce connection factory")
			.withMessageContaining("'first' already provides it");
	}

	@Test
	void lettuceClusterConnectionsHaveOneContributor() {
		this.lettuce.claimClusterConnections("first", (shared, provider, topology, executor, timeout) -> null);
		assertThatIllegalStateException()
			.isThrownBy(() -> this.lettuce.claimClusterConnections("second",
					(shared, provider, topology, executor, timeout) -> null))
			.withMessageContaining("'second' cannot provide the cluster connections of the Lettuce connection factory")
			.withMessageContaining("'first' already provides it");
	}

	@Test
	void contributorsMustBeNamed() {
		assertThatIllegalArgumentException(() -> this.jedis.claimTopologyProvider("", (client) -> null));
		assertThatIllegalArgumentException(() -> this.lettuce.addStartedListener(" ", (factory) -> {
		}));
	}

	private static void assertThatIllegalArgumentException(Runnable action) {
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(action::run)
			.withMessageContaining("'contributor' must not be empty");
	}

}
