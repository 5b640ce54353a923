package dev.slotwise.autoconfigure;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Set;

import dev.slotwise.internal.compat.SpringBootInternals;
import dev.slotwise.internal.multikey.MultiKeyCommands;
import io.lettuce.core.CommandListenerWriter;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.reactive.RedisAdvancedClusterReactiveCommands;
import io.lettuce.core.protocol.DefaultEndpoint;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.builders.ClusterClientBuilder;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.data.redis.connection.RedisClusterServerCommands;
import org.springframework.data.redis.connection.RedisGeoCommands;
import org.springframework.data.redis.connection.RedisHashCommands;
import org.springframework.data.redis.connection.RedisHyperLogLogCommands;
import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisListCommands;
import org.springframework.data.redis.connection.RedisScriptingCommands;
import org.springframework.data.redis.connection.RedisSetCommands;
import org.springframework.data.redis.connection.RedisStreamCommands;
import org.springframework.data.redis.connection.RedisStringCommands;
import org.springframework.data.redis.connection.RedisZSetCommands;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every JDK proxy, reflective access and resource of Slotwise has its hint, checked with
 * Spring's {@link RuntimeHintsPredicates} on hints that only Slotwise's registrar, as
 * {@code aot.factories} lists it, filled. The expected members are written out here (or
 * taken from the code that uses them), not read from the registrar.
 */
class SlotwiseRuntimeHintsTests {

	private final RuntimeHints hints = registered();

	private static RuntimeHints registered() {
		RuntimeHints hints = new RuntimeHints();
		List<RuntimeHintsRegistrar> registrars = SpringFactoriesLoader
			.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class);
		assertThat(registrars).hasAtLeastOneElementOfType(SlotwiseRuntimeHints.class);
		registrars.stream()
			.filter(SlotwiseRuntimeHints.class::isInstance)
			.forEach((registrar) -> registrar.registerHints(hints, SlotwiseRuntimeHintsTests.class.getClassLoader()));
		return hints;
	}

	@Test
	void commandGroupsSlotwiseProxiesAreProxiesWhoseEveryMethodCanBeForwarded() {
		// Multi-key routing and key walks (string, key commands), Jedis cluster pipelines
		// (every group it records).
		for (Class<?> group : List.of(RedisStringCommands.class, RedisKeyCommands.class, RedisHashCommands.class,
				RedisListCommands.class, RedisSetCommands.class, RedisZSetCommands.class,
				RedisHyperLogLogCommands.class, RedisGeoCommands.class, RedisStreamCommands.class,
				RedisClusterServerCommands.class, RedisScriptingCommands.class)) {
			assertProxyForwardingEveryMethod(group);
		}
	}

	@Test
	void lettuceReactiveClusterInterfacesAreProxiesWhoseEveryMethodCanBeForwarded() {
		assertProxyForwardingEveryMethod(StatefulRedisClusterConnection.class);
		assertProxyForwardingEveryMethod(RedisAdvancedClusterReactiveCommands.class);
	}

	@Test
	void interceptedMultiKeyMethodsCanBeLookedUpAndInvoked() {
		Set<Method> intercepted = MultiKeyCommands.requireInterceptedMethods();
		assertThat(intercepted).isNotEmpty();
		for (Method method : intercepted) {
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method)).as(method.toString())
				.accepts(this.hints);
		}
	}

	@Test
	void jedisFieldsTheFastPathsReadAreAccessible() {
		assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(ClusterClientBuilder.class, "maxAttempts"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onFieldAccess(ClusterClientBuilder.class, "maxTotalRetriesDuration")).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(UnifiedJedis.class, "provider"))
			.accepts(this.hints);
		for (String field : List.of("nodes", "topologyRefreshPeriod")) {
			assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(ClusterClientBuilder.class, field))
				.accepts(this.hints);
		}
		for (String field : List.of("clientConfig", "poolConfig", "cache", "cacheConfig", "connectionProvider")) {
			assertThat(RuntimeHintsPredicates.reflection()
				.onFieldAccess(redis.clients.jedis.builders.AbstractClientBuilder.class, field)).accepts(this.hints);
		}
	}

	@Test
	void lettuceMembersTheFastPathsReachAreAccessible() throws Exception {
		assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(DefaultEndpoint.class, "channel"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(CommandListenerWriter.class, "listener"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation("io.lettuce.core.event.connection.ConnectionEventSupport", "getEpId"))
			.accepts(this.hints);
		for (String type : List.of("io.lettuce.core.cluster.RedisClusterClient",
				"io.lettuce.core.cluster.ClusterCommand", "io.lettuce.core.OrderingReadFromAccessor",
				"io.lettuce.core.DriverInfo", "io.lettuce.core.RedisClient",
				"dev.slotwise.internal.topology.SamplingRedisClusterClient")) {
			assertThat(RuntimeHintsPredicates.reflection().onType(Class.forName(type))).as(type).accepts(this.hints);
		}
	}

	@Test
	void springDataMembersTheFastPathsReachAreAccessible() throws Exception {
		Class<?> topology = Class
			.forName("org.springframework.data.redis.connection.jedis.JedisClusterConnection$JedisClusterTopology");
		assertThat(RuntimeHintsPredicates.reflection()
			.onConstructorInvocation(topology.getDeclaredConstructor(Set.class, long.class, long.class)))
			.accepts(this.hints);
		for (String type : List.of("redis.clients.jedis.Jedis",
				"org.springframework.data.redis.connection.jedis.JedisConnection", "redis.clients.jedis.UnifiedJedis",
				"redis.clients.jedis.ConnectionPool", "redis.clients.jedis.RedisClusterClient")) {
			assertThat(RuntimeHintsPredicates.reflection().onType(Class.forName(type))).as(type).accepts(this.hints);
		}
	}

	@Test
	void springBootConfigurationsWhoseBeanMethodsAreReadAreRegistered() throws Exception {
		Set<String> declarers = SpringBootInternals.connectionFactoryDeclarers();
		assertThat(declarers).hasSizeGreaterThan(1);
		for (String type : declarers) {
			assertThat(RuntimeHintsPredicates.reflection().onType(Class.forName(type))).as(type).accepts(this.hints);
		}
	}

	@Test
	void mavenMetadataTheStartUpGuardReadsIsAResource() {
		for (String resource : List.of("META-INF/maven/org.springframework.data/spring-data-redis/pom.properties",
				"META-INF/maven/redis.clients/jedis/pom.properties",
				"META-INF/maven/io.lettuce/lettuce-core/pom.properties")) {
			assertThat(RuntimeHintsPredicates.resource().forResource(resource)).as(resource).accepts(this.hints);
		}
	}

	@Test
	void typesOfAClientThatIsNotOnTheClassPathAreNotRegistered() {
		RuntimeHints withoutClients = new RuntimeHints();
		new SlotwiseRuntimeHints().registerHints(withoutClients,
				new FilteredClassLoader("redis.clients.jedis.", "io.lettuce.core."));
		for (String type : List.of("redis.clients.jedis.UnifiedJedis",
				"redis.clients.jedis.builders.ClusterClientBuilder", "io.lettuce.core.protocol.DefaultEndpoint",
				"io.lettuce.core.cluster.RedisClusterClient",
				"org.springframework.data.redis.connection.jedis.JedisClusterConnection$JedisClusterTopology")) {
			assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(type))).as(type)
				.rejects(withoutClients)
				.accepts(this.hints);
		}
		assertThat(RuntimeHintsPredicates.proxies().forInterfaces(StatefulRedisClusterConnection.class))
			.rejects(withoutClients);
		assertThat(RuntimeHintsPredicates.proxies().forInterfaces(RedisStringCommands.class)).accepts(withoutClients);
	}

	private void assertProxyForwardingEveryMethod(Class<?> type) {
		assertThat(RuntimeHintsPredicates.proxies().forInterfaces(type)).as("proxy of %s", type.getName())
			.accepts(this.hints);
		// getMethods() includes the methods of every super-interface: each is forwarded
		// with Method.invoke.
		Method[] methods = type.getMethods();
		assertThat(methods).isNotEmpty();
		for (Method method : methods) {
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method)).as(method.toString())
				.accepts(this.hints);
		}
	}

}
