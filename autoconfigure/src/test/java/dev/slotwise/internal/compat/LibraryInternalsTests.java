package dev.slotwise.internal.compat;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;

import dev.slotwise.internal.health.FastPaths;
import io.lettuce.core.CommandListenerWriter;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.connection.ConnectedEvent;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ClusterTopology;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.core.ScanOptions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * The self-checks of every library internal Slotwise relies on pass against the Jedis and
 * Lettuce on the class path: a library upgrade that renames or removes one fails here
 * (and in the integration test named beside each fast path in docs/how-it-plugs-in.md),
 * not silently in production.
 */
class LibraryInternalsTests {

	@Test
	void jedisSlotCacheIsReachable() {
		assertThat(JedisInternals.slotCache().problem()).isNull();
		assertThat(JedisInternals.slotCache().relies()).isEqualTo("redis.clients.jedis.UnifiedJedis.provider");
	}

	@Test
	void jedisRetrySettingsAreReadable() {
		assertThat(JedisInternals.retrySettingsAccess().problem()).isNull();
		redis.clients.jedis.RedisClusterClient.Builder builder = redis.clients.jedis.RedisClusterClient.builder();
		builder.maxAttempts(3).maxTotalRetriesDuration(java.time.Duration.ofMillis(700));
		assertThat(JedisInternals.retrySettings(builder))
			.isEqualTo(new JedisInternals.RetrySettings(3, java.time.Duration.ofMillis(700)));
	}

	@Test
	void jedisProviderSettingsAreReadable() {
		assertThat(JedisInternals.renewalPacing().problem()).isNull();
		// Nothing to create the provider from: the builder is left to say so when it
		// builds.
		assertThat(JedisInternals.paceRenewals(redis.clients.jedis.RedisClusterClient.builder(),
				java.time.Duration.ofMillis(250)))
			.isFalse();
	}

	@Test
	void lettuceEndpointChannelIsReachable() {
		assertThat(LettuceInternals.batchWrite().problem()).isNull();
	}

	@Test
	void lettuceCommandListenerOfANodeConnectionIsReachable() {
		assertThat(LettuceInternals.batchWriteListeners().problem()).isNull();
		CommandListener listener = new CommandListener() {
		};
		CommandListenerWriter writer = new CommandListenerWriter(mock(RedisChannelWriter.class), List.of(listener));
		assertThat(LettuceInternals.commandListener(writer))
			.isInstanceOf(CommandListenerWriter.CommandListenerMulticaster.class);
	}

	@Test
	void lettuceReadFromOrderIsReachable() {
		assertThat(LettuceInternals.readFromOrder().problem()).isNull();
		assertThat(LettuceInternals.isOrderSensitive(io.lettuce.core.ReadFrom.REPLICA_PREFERRED)).isTrue();
		assertThat(LettuceInternals.isOrderSensitive(io.lettuce.core.ReadFrom.ANY_REPLICA)).isFalse();
	}

	@Test
	void lettuceEventEndpointIdIsReachable() {
		assertThat(LettuceInternals.eventEndpointId().problem()).isNull();
		ConnectedEvent event = new ConnectedEvent("redis://127.0.0.1:7000", "0x2a", "0x7", new InetSocketAddress(1),
				new InetSocketAddress(7000));
		assertThat(LettuceInternals.endpointId(event)).isEqualTo("0x2a");
	}

	@Test
	void springDataJedisTopologyTypeIsReachable() throws Exception {
		assertThat(SpringDataInternals.jedisTopologyType().problem()).isNull();
		Set<RedisClusterNode> nodes = Set.of(new RedisClusterNode("127.0.0.1", 7000));
		ClusterTopology topology = SpringDataInternals.jedisTopology(nodes, 1234L, 5000L);
		Class<?> type = Class
			.forName("org.springframework.data.redis.connection.jedis.JedisClusterConnection$JedisClusterTopology");
		assertThat(topology).isInstanceOf(type);
		assertThat(type.getMethod("getTime").invoke(topology)).isEqualTo(1234L);
		assertThat(topology.getNodes()).isEqualTo(nodes);
	}

	@Test
	void lettuceScanArgsAreReadBack() {
		assertThat(LettuceInternals.scanArgs().problem()).isNull();
		ScanOptions options = LettuceInternals.scanOptions(ScanArgs.Builder.matches("k:*").limit(9));
		assertThat(options).isNotNull();
		assertThat(options.getPattern()).isEqualTo("k:*");
		assertThat(options.getCount()).isEqualTo(9L);
	}

	@Test
	void springDataJedisPipelineReplayIsAvailable() {
		assertThat(SpringDataInternals.jedisPipelineReplay().problem()).isNull();
	}

	@Test
	void springBootConnectionConfigurationsAreFoundThroughTheAutoConfigurationsImport() {
		assertThat(SpringBootInternals.factoryReplacement().problem()).isNull();
		assertThat(SpringBootInternals.connectionFactoryDeclarers()).contains(
				"org.springframework.boot.data.redis.autoconfigure.LettuceConnectionConfiguration",
				"org.springframework.boot.data.redis.autoconfigure.JedisConnectionConfiguration",
				"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration");
	}

	@Test
	void anInactiveFastPathNamesItsProblemAndFallback() {
		FastPath off = new FastPath("x", "Some.field", "done the slow way", "cannot read Some.field");
		assertThat(off.active()).isFalse();
		assertThat(off.describe()).isEqualTo("off (cannot read Some.field): done the slow way");
		assertThat(FastPaths.summarize(List.of(new FastPath("a", "A.a", "slow", null), off)))
			.isEqualTo("active a; x off (cannot read Some.field): done the slow way");
	}

}
