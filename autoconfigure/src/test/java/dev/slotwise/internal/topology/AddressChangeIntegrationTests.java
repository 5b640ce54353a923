package dev.slotwise.internal.topology;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every node's address changes at once while the seed nodes stay reachable by name, as
 * when every pod of a cluster is rescheduled with a new IP behind unchanged DNS names.
 * Simulated on loopback: the nodes listen on 127.0.0.1 (reached through the seeds
 * {@code localhost:port}) and on an announced address, 127.0.0.2; then every node saves,
 * shuts down and starts again on the same port and data, listening on 127.0.0.1 and
 * 127.0.0.3 only and announcing 127.0.0.3, so that every address the clients learned from
 * the cluster is gone while the seeds still reach the nodes. Both clients must find the
 * cluster again without a restart, within {@link #RECOVERY_BOUND}: cross-slot
 * {@code multiGet} first (the engine's path, before any single-key command could make
 * Jedis renew its slot table itself), then {@code multiSet}, {@code get}/{@code set},
 * {@code delete} and a command sent to every master, with every value right, and the
 * servers showing the clients' connections arriving on the new addresses.
 * <p>
 * Periodic refresh is off ({@code slotwise.topology.periodic-refresh=0}) so that only the
 * failure-driven path can recover; with it on, Jedis's own periodic renewal (which asks
 * the seeds first) would also find the cluster again, up to a period later.
 */
class AddressChangeIntegrationTests {

	private static final String CLIENT_NAME = "slotwise-address-change-test";

	/**
	 * From the first call after the change to the first right answer. A refresh may have
	 * failed while the nodes were down, so the pacer may wait up to its back-off cap
	 * (cache-ttl, 5 s) before the next; add the seed round trip and the margin a 2-core
	 * machine shared with other clusters needs.
	 */
	private static final Duration RECOVERY_BOUND = Duration.ofSeconds(15);

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void bothClientsFindTheClusterAgainWhenEveryAddressChanged(String client) throws Exception {
		try (RedisTestCluster cluster = RedisTestCluster.startAnnouncingIp(ClusterShape.DEFAULT, "127.0.0.2")) {
			assertThat(cluster.nodesProperty()).startsWith("localhost:");
			new ApplicationContextRunner()
				.withConfiguration(
						AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
				.withPropertyValues("spring.data.redis.client-type=" + client,
						"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(),
						"spring.data.redis.client-name=" + CLIENT_NAME, "spring.data.redis.timeout=2s",
						"slotwise.topology.periodic-refresh=0")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
					RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
					Map<String, String> values = values(client + ":before:");
					List<String> keys = List.copyOf(values.keySet());
					template.opsForValue().multiSet(values);
					template.opsForValue().set(client + ":single", "one");
					assertThat(template.opsForValue().multiGet(keys)).containsExactlyElementsOf(values.values());
					assertThat(factory.getClusterConnection().clusterGetNodes()).extracting(RedisClusterNode::getHost)
						.containsOnly("127.0.0.2");

					cluster.reannounce("127.0.0.3");
					for (RedisNode node : cluster.nodes()) {
						assertThat(accepts("127.0.0.2", node.port())).as("old address of %s still served", node)
							.isFalse();
					}

					// The engine's path first: nothing else has touched the client since
					// the change.
					long start = System.nanoTime();
					Duration recovery = null;
					RuntimeException last = null;
					while (recovery == null) {
						try {
							assertThat(template.opsForValue().multiGet(keys))
								.containsExactlyElementsOf(values.values());
							recovery = Duration.ofNanos(System.nanoTime() - start);
						}
						catch (RuntimeException ex) {
							last = ex;
							if (System.nanoTime() - start > RECOVERY_BOUND.toNanos()) {
								throw new AssertionError(
										"multiGet still failing " + RECOVERY_BOUND + " after every address changed",
										last);
							}
							Thread.sleep(100);
						}
					}
					System.out.printf("[address-change] %s: multiGet right again %d ms after the first call%n", client,
							recovery.toMillis());
					assertThat(recovery).isLessThanOrEqualTo(RECOVERY_BOUND);

					Map<String, String> after = values(client + ":after:");
					template.opsForValue().multiSet(after);
					assertThat(template.opsForValue().multiGet(List.copyOf(after.keySet())))
						.containsExactlyElementsOf(after.values());
					assertThat(template.opsForValue().get(client + ":single")).isEqualTo("one");
					template.opsForValue().set(client + ":single", "two");
					assertThat(template.opsForValue().get(client + ":single")).isEqualTo("two");
					assertThat(template.delete(keys)).isEqualTo(keys.size());
					// Sent to every master through Spring Data Redis's node connections
					// and the topology.
					assertThat(template.keys(client + ":single")).containsExactly(client + ":single");
					assertThat(factory.getClusterConnection().clusterGetNodes()).extracting(RedisClusterNode::getHost)
						.containsOnly("127.0.0.3");
					// The servers see the clients' connections arrive on the new
					// addresses.
					for (RedisNode master : cluster.masters()) {
						assertThat(cluster.clients(master)).filteredOn((c) -> CLIENT_NAME.equals(c.get("name")))
							.as("connections of the application on %s", master)
							.anySatisfy((c) -> assertThat(c.get("laddr")).startsWith("127.0.0.3:"));
					}
				});
		}
	}

	private static Map<String, String> values(String prefix) {
		Map<String, String> values = new LinkedHashMap<>();
		IntStream.range(0, 200).forEach((i) -> values.put(prefix + i, "v" + i));
		return values;
	}

	private static boolean accepts(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
