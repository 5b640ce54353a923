package dev.slotwise.internal.multikey.jedis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.stream.Collectors;

import dev.slotwise.internal.multikey.MultiKeyCommand;
import dev.slotwise.internal.multikey.NodeTransport;
import dev.slotwise.internal.multikey.MultiKeyTestSupport;
import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.dao.DataAccessResourceFailureException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A node batch that reaches the Jedis transport after its cluster client closed (a call
 * in flight while the application context closes) fails with a clear exception and
 * re-creates no pool on the closed client.
 */
@WithRedisCluster
class JedisTransportClosedClientIntegrationTests {

	@Test
	void batchOnAClosedClientFailsAndOpensNoConnection(RedisTestCluster cluster) {
		Set<HostAndPort> seeds = cluster.nodes()
			.stream()
			.map((node) -> new HostAndPort(node.host(), node.port()))
			.collect(Collectors.toSet());
		RedisClusterClient client = RedisClusterClient.builder()
			.nodes(seeds)
			.clientConfig(DefaultJedisClientConfig.builder().clientName(MultiKeyTestSupport.CLIENT_NAME).build())
			.build();
		try (MultiKeyExecutor executor = MultiKeyExecutor.create(2, 4, "closed-client-test-", Duration.ofSeconds(1))) {
			JedisNodeTransport transport = new JedisNodeTransport(client, () -> {
				throw new IllegalStateException("routing is not used by this test");
			}, executor.executor());
			RedisNode owner = cluster.masterServing("closed:k");
			NodeAddress node = new NodeAddress(owner.host(), owner.port());
			List<NodeTransport.Request> requests = List.of(new NodeTransport.Request(MultiKeyCommand.EXISTS,
					new byte[][] { "closed:k".getBytes(StandardCharsets.UTF_8) }, false));
			assertThat(transport.send(node, requests, 16).join()).containsExactly(0L);
			client.close();
			assertThat(MultiKeyTestSupport.eventually(() -> MultiKeyTestSupport.applicationConnections(cluster) == 0))
				.as("connections of the closed client gone")
				.isTrue();
			assertThatExceptionOfType(CompletionException.class)
				.isThrownBy(() -> transport.send(node, requests, 16).join())
				.withCauseInstanceOf(DataAccessResourceFailureException.class)
				.withMessageContaining("closed");
			assertThat(client.getClusterNodes()).as("pools re-created on the closed client").isEmpty();
			assertThat(MultiKeyTestSupport.applicationConnections(cluster)).as("connections opened after close")
				.isZero();
		}
		finally {
			client.close();
		}
	}

}
