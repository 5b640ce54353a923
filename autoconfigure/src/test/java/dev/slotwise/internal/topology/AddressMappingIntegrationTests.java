package dev.slotwise.internal.topology;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.IntStream;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import io.lettuce.core.resource.MappingSocketAddressResolver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.HostAndPort;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.JedisClientConfigurationBuilderCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Nodes that announce an address a client cannot reach, as behind a NAT or a container's
 * port publishing: every node announces its port ± {@value #OFFSET}, where nothing
 * listens, and the application maps announced addresses to the real ones with the
 * client's own mapper (Jedis's {@code HostAndPortMapper} through a
 * {@link JedisClientConfigurationBuilderCustomizer}, Lettuce's
 * {@link MappingSocketAddressResolver} through a
 * {@link ClientResourcesBuilderCustomizer}). Pre-warm, cross-slot reads and writes
 * through the engine, commands sent to every master and topology refreshes all go through
 * the mapper, on both clients, as the servers report.
 */
@ExtendWith(OutputCaptureExtension.class)
class AddressMappingIntegrationTests {

	private static final int OFFSET = 20_000;

	private static final String CLIENT_NAME = "slotwise-mapping-test";

	private static RedisTestCluster cluster;

	@BeforeAll
	static void startCluster() {
		// No replicas: a replica reaches its master at the announced address, which only
		// clients can map.
		cluster = RedisTestCluster.startBehindPortMapping(new ClusterShape(3, 0), OFFSET);
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void everySlotwisePathGoesThroughTheApplicationsAddressMapper(String client, CapturedOutput output) {
		List<RedisNode> masters = cluster.masters();
		for (RedisNode node : cluster.nodes()) {
			assertThat(accepts(cluster.announcedPort(node))).as("announced port of %s served", node).isFalse();
		}
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withUserConfiguration(Mappers.class)
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(),
					"spring.data.redis.client-name=" + CLIENT_NAME, "spring.data.redis.timeout=2s",
					"slotwise.topology.cache-ttl=500ms", "slotwise.topology.periodic-refresh=1s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				// Pre-warm reached every master through the mapper before the first call.
				assertThat(output.getAll()).doesNotContain("Could not pre-warm");
				for (RedisNode master : masters) {
					assertThat(cluster.countClients(master, CLIENT_NAME)).as("connections on %s", master).isPositive();
				}
				RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
				assertThat(factory.getClusterConnection().clusterGetNodes()).extracting(RedisClusterNode::getPort)
					.containsExactlyInAnyOrderElementsOf(cluster.nodes().stream().map(cluster::announcedPort).toList());
				cluster.resetStats();

				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				Map<String, String> values = new LinkedHashMap<>();
				IntStream.range(0, 300).forEach((i) -> values.put("map:" + client + ":" + i, "v" + i));
				List<String> keys = List.copyOf(values.keySet());
				template.opsForValue().multiSet(values);
				assertThat(template.opsForValue().multiGet(keys)).containsExactlyElementsOf(values.values());
				assertThat(template.countExistingKeys(keys)).isEqualTo(keys.size());
				// The engine served them on every master: per-slot MGET, never one GET
				// per key.
				assertThat(cluster.totalCommandCalls("get")).isZero();
				for (RedisNode master : masters) {
					assertThat(cluster.commandCalls(master, "mget")).as("MGET on %s", master).isPositive();
				}
				// A command Spring Data Redis sends to every master through the factory's
				// node connections.
				template.opsForValue().set("map:" + client + ":one", "1");
				assertThat(template.keys("map:" + client + ":one")).containsExactly("map:" + client + ":one");

				// Refreshes (cache-ttl 500 ms, periodic 1 s) reach the servers through
				// the mapper, and calls stay right.
				cluster.resetStats();
				long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
				while (System.nanoTime() < deadline) {
					assertThat(template.opsForValue().multiGet(keys)).containsExactlyElementsOf(values.values());
					Thread.sleep(100);
				}
				assertThat(cluster.totalCommandCalls("cluster|nodes")).as("topology refreshes the servers answered")
					.isPositive();
				assertThat(output.getAll()).doesNotContain("Could not refresh the Redis Cluster topology");
				assertThat(template.delete(keys)).isEqualTo(keys.size());
			});
	}

	private static boolean accepts(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	/** Announced port → real port, as the application would configure it for its NAT. */
	private static int realPort(int port) {
		return cluster.realPort(port);
	}

	@Configuration(proxyBeanMethods = false)
	static class Mappers {

		@Bean
		JedisClientConfigurationBuilderCustomizer jedisMapper() {
			return (builder) -> builder.customizeClientConfig((config) -> config
				.hostAndPortMapper((address) -> new HostAndPort(address.getHost(), realPort(address.getPort()))));
		}

		@Bean
		ClientResourcesBuilderCustomizer lettuceMapper() {
			Function<io.lettuce.core.internal.HostAndPort, io.lettuce.core.internal.HostAndPort> mapping = (
					address) -> io.lettuce.core.internal.HostAndPort.of(address.getHostText(),
							realPort(address.getPort()));
			return (builder) -> builder.socketAddressResolver(MappingSocketAddressResolver.create(mapping));
		}

	}

}
