package dev.slotwise.internal.multikey;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node that closed the application's idle pooled connections ({@code CLIENT KILL}, as
 * the chaos soak does): the next cross-slot {@code multiGet}, {@code multiSet} and
 * pipeline each draw a dead connection per node, and succeed on the first try, each node
 * batch executed once on the servers. Plain Boot beside it, for its single-key commands,
 * which Jedis's cluster executor sends again the same way.
 */
@WithRedisCluster
class JedisKilledConnectionsIntegrationTests {

	private static final int KEYS = 60;

	@Test
	void crossSlotMultiGetSucceedsOnTheFirstTryAfterTheNodesKilledThePooledConnections(RedisTestCluster cluster) {
		MultiKeyTestSupport.runner("jedis", cluster).run((context) -> {
			StringRedisTemplate template = warmed(context.getBean(RedisConnectionFactory.class), cluster);
			cluster.resetStats();
			List<String> before = List.copyOf(template.opsForValue().multiGet(keys()));
			long mgets = cluster.totalCommandCalls("mget");
			for (RedisNode master : cluster.masters()) {
				assertThat(cluster.commandCalls(master, "mget")).as("MGETs on %s", master).isPositive();
			}
			killApplicationConnections(cluster);
			cluster.resetStats();
			assertThat(template.opsForValue().multiGet(keys())).containsExactlyElementsOf(before);
			// As many MGET batches reached the servers as with live connections: the dead
			// connections' never did.
			assertThat(cluster.totalCommandCalls("mget")).as("MGET batches executed").isEqualTo(mgets);
		});
	}

	@Test
	void crossSlotMultiSetSucceedsOnTheFirstTryAfterTheNodesKilledThePooledConnections(RedisTestCluster cluster) {
		MultiKeyTestSupport.runner("jedis", cluster).run((context) -> {
			StringRedisTemplate template = warmed(context.getBean(RedisConnectionFactory.class), cluster);
			cluster.resetStats();
			template.opsForValue().multiSet(values(keys(), "b"));
			long msets = cluster.totalCommandCalls("mset");
			killApplicationConnections(cluster);
			cluster.resetStats();
			Map<String, String> written = values(keys(), "c");
			template.opsForValue().multiSet(written);
			assertThat(cluster.totalCommandCalls("mset")).as("MSET batches executed").isEqualTo(msets);
			assertThat(template.opsForValue().multiGet(keys())).containsExactlyElementsOf(written.values());
		});
	}

	@Test
	void pipelineSucceedsOnTheFirstTryAfterTheNodesKilledThePooledConnections(RedisTestCluster cluster) {
		MultiKeyTestSupport.runner("jedis", cluster).run((context) -> {
			StringRedisTemplate template = warmed(context.getBean(RedisConnectionFactory.class), cluster);
			killApplicationConnections(cluster);
			cluster.resetStats();
			assertThat(pipelinedGets(template, keys())).containsExactlyElementsOf(values(keys(), "a").values());
			assertThat(cluster.totalCommandCalls("get")).as("pipelined GETs executed").isEqualTo(KEYS);
		});
	}

	/**
	 * Writes the keys, and leaves every master's pool holding idle connections that
	 * served a batch and a pipeline.
	 */
	private static StringRedisTemplate warmed(RedisConnectionFactory factory, RedisTestCluster cluster) {
		StringRedisTemplate template = new StringRedisTemplate(factory);
		Map<String, String> values = values(keys(), "a");
		template.opsForValue().multiSet(values);
		assertThat(template.opsForValue().multiGet(keys())).containsExactlyElementsOf(values.values());
		assertThat(pipelinedGets(template, keys())).containsExactlyElementsOf(values.values());
		return template;
	}

	@Test
	void plainBootSendsSingleKeyCommandsAgainAfterTheNodesKilledThePooledConnections(RedisTestCluster cluster) {
		MultiKeyTestSupport.runner("jedis", cluster).withPropertyValues("slotwise.enabled=false").run((context) -> {
			StringRedisTemplate template = new StringRedisTemplate(context.getBean(RedisConnectionFactory.class));
			List<String> keys = keys();
			for (String key : keys) {
				template.opsForValue().set(key, "a" + key);
			}
			killApplicationConnections(cluster);
			cluster.resetStats();
			// Jedis's cluster executor meets the dead connections and sends each command
			// again: the same promise Slotwise keeps for its node batches.
			for (String key : keys) {
				assertThat(template.opsForValue().get(key)).isEqualTo("a" + key);
			}
			assertThat(cluster.totalCommandCalls("get")).isEqualTo(KEYS);
		});
	}

	private static List<Object> pipelinedGets(StringRedisTemplate template, List<String> keys) {
		return template.executePipelined((RedisCallback<Object>) (connection) -> {
			for (String key : keys) {
				connection.stringCommands().get(key.getBytes(StandardCharsets.UTF_8));
			}
			return null;
		});
	}

	private static void killApplicationConnections(RedisTestCluster cluster) {
		long killed = 0;
		for (RedisNode master : cluster.masters()) {
			killed += cluster.killClients(master, MultiKeyTestSupport.CLIENT_NAME);
		}
		assertThat(killed).as("application connections killed").isGreaterThanOrEqualTo(cluster.masters().size());
		// The servers close the killed sockets asynchronously; the client learns only
		// when it next reads.
		assertThat(MultiKeyTestSupport.eventually(() -> cluster.masters()
			.stream()
			.allMatch((master) -> cluster.countClients(master, MultiKeyTestSupport.CLIENT_NAME) == 0))).isTrue();
	}

	private static List<String> keys() {
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < KEYS; i++) {
			keys.add("killed:" + i);
		}
		return keys;
	}

	private static Map<String, String> values(List<String> keys, String prefix) {
		Map<String, String> values = new LinkedHashMap<>();
		for (String key : keys) {
			values.put(key, prefix + key);
		}
		return values;
	}

}
