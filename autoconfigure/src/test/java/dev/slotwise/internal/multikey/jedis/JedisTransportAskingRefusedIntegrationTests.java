package dev.slotwise.internal.multikey.jedis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import dev.slotwise.internal.multikey.MultiKeyCommand;
import dev.slotwise.internal.multikey.NodeTransport;
import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the server refuses {@code ASKING} (an ACL user denied it gets {@code NOPERM}), the
 * Jedis transport returns that refusal as the command's reply instead of dropping it, so
 * the call fails naming it rather than looping on the {@code MOVED} the command meets
 * without {@code ASKING}.
 */
@WithRedisCluster
class JedisTransportAskingRefusedIntegrationTests {

	private static final String USER = "slotwise-no-asking";

	@Test
	void refusedAskingIsTheCommandsReply(RedisTestCluster cluster) {
		for (RedisNode node : cluster.nodes()) {
			cluster.withAdmin(node,
					(jedis) -> jedis.aclSetUser(USER, "reset", "on", ">secret", "~*", "+@all", "-asking"));
		}
		Set<HostAndPort> seeds = cluster.nodes()
			.stream()
			.map((node) -> new HostAndPort(node.host(), node.port()))
			.collect(Collectors.toSet());
		RedisClusterClient client = RedisClusterClient.builder()
			.nodes(seeds)
			.clientConfig(DefaultJedisClientConfig.builder().user(USER).password("secret").build())
			.build();
		try (client; MultiKeyExecutor executor = MultiKeyExecutor.create(2, 4, "asking-test-", Duration.ofSeconds(1))) {
			JedisNodeTransport transport = new JedisNodeTransport(client, () -> {
				throw new IllegalStateException("routing is not used by this test");
			}, executor.executor());
			RedisNode owner = cluster.masterServing("asking:k");
			NodeAddress node = new NodeAddress(owner.host(), owner.port());
			byte[][] key = { "asking:k".getBytes(StandardCharsets.UTF_8) };
			List<Object> replies = transport
				.send(node, List.of(new NodeTransport.Request(MultiKeyCommand.EXISTS, key, true),
						new NodeTransport.Request(MultiKeyCommand.EXISTS, key, false)), 16)
				.join();
			assertThat(replies.get(0)).isInstanceOfSatisfying(NodeTransport.ErrorReply.class,
					(error) -> assertThat(error.message()).startsWith("NOPERM").containsIgnoringCase("asking"));
			assertThat(replies.get(1)).as("the next command in the window keeps its own reply").isEqualTo(0L);
			String errorstats = cluster.withAdmin(owner, (jedis) -> jedis.info("errorstats"));
			assertThat(errorstats).contains("errorstat_NOPERM");
		}
		finally {
			for (RedisNode node : cluster.nodes()) {
				cluster.withAdmin(node, (jedis) -> jedis.aclDelUser(USER));
			}
		}
	}

}
