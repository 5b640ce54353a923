package dev.slotwise.autoconfigure;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.slotwise.internal.compat.SpringBootInternals;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
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
import org.springframework.util.ClassUtils;

/**
 * What a native image needs to know of Slotwise ahead of time: registered through
 * {@code META-INF/spring/aot.factories}, so that Spring AOT applies it whenever Slotwise
 * is on the class path.
 * <ul>
 * <li>the JDK proxies Slotwise puts in front of Spring Data Redis's command groups
 * (multi-key routing, key walks, cluster pipelines) and of Lettuce's reactive cluster
 * connection, with the public methods of every interface they implement (and of those
 * interfaces' super-interfaces) open to invocation, since each proxy forwards the calls
 * it does not serve with {@link java.lang.reflect.Method#invoke};</li>
 * <li>the members of Lettuce, Jedis, Spring Data Redis and Spring Boot the
 * {@code dev.slotwise.internal.compat} classes reach (the fast paths): fields read
 * through reflection or a private lookup, methods and constructors looked up or called
 * through method handles, classes looked up by name. Registered rather than switched off,
 * so that a native image keeps the fast paths; each still falls back as on the JVM when
 * its member is missing;</li>
 * <li>the Maven metadata of the libraries whose version the start-up guard names when it
 * backs off.</li>
 * </ul>
 * Every type of an optional library is registered only when that library is on the class
 * path at build time.
 */
final class SlotwiseRuntimeHints implements RuntimeHintsRegistrar {

	/**
	 * The Spring Data Redis command groups Slotwise proxies: multi-key, key walks and
	 * Jedis cluster pipelines.
	 */
	private static final List<Class<?>> COMMAND_GROUPS = List.of(RedisStringCommands.class, RedisKeyCommands.class,
			RedisHashCommands.class, RedisListCommands.class, RedisSetCommands.class, RedisZSetCommands.class,
			RedisHyperLogLogCommands.class, RedisGeoCommands.class, RedisStreamCommands.class,
			RedisClusterServerCommands.class, RedisScriptingCommands.class);

	/** The Lettuce interfaces {@code ReactiveRouting} proxies, each on its own. */
	private static final List<String> LETTUCE_PROXIES = List.of(
			"io.lettuce.core.cluster.api.StatefulRedisClusterConnection",
			"io.lettuce.core.cluster.api.reactive.RedisAdvancedClusterReactiveCommands");

	/** Classes looked up by name only (presence checks). */
	private static final List<String> LOOKED_UP_BY_NAME = List.of("redis.clients.jedis.Jedis",
			"redis.clients.jedis.UnifiedJedis", "redis.clients.jedis.ConnectionPool",
			"redis.clients.jedis.RedisClusterClient", "io.lettuce.core.RedisClient", "io.lettuce.core.DriverInfo",
			"io.lettuce.core.OrderingReadFromAccessor", "io.lettuce.core.cluster.ClusterCommand");

	/**
	 * Maven metadata the start-up guard reads when a jar has no Implementation-Version.
	 */
	private static final List<String> POM_PROPERTIES = List.of(
			"META-INF/maven/org.springframework.data/spring-data-redis/pom.properties",
			"META-INF/maven/redis.clients/jedis/pom.properties",
			"META-INF/maven/io.lettuce/lettuce-core/pom.properties");

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		for (Class<?> group : COMMAND_GROUPS) {
			proxy(hints, group);
		}
		for (String name : LETTUCE_PROXIES) {
			if (ClassUtils.isPresent(name, classLoader)) {
				proxy(hints, ClassUtils.resolveClassName(name, classLoader));
			}
		}
		for (String name : LOOKED_UP_BY_NAME) {
			hints.reflection().registerTypeIfPresent(classLoader, name);
		}
		registerJedisInternals(hints, classLoader);
		registerLettuceInternals(hints, classLoader);
		registerSpringDataInternals(hints, classLoader);
		registerSpringBootInternals(hints, classLoader);
		for (String location : POM_PROPERTIES) {
			hints.resources().registerPattern(location);
		}
	}

	private static void proxy(RuntimeHints hints, Class<?> type) {
		hints.proxies().registerJdkProxy(type);
		for (Class<?> invoked : withSuperInterfaces(type)) {
			hints.reflection().registerType(invoked, MemberCategory.INVOKE_PUBLIC_METHODS);
		}
	}

	private static Set<Class<?>> withSuperInterfaces(Class<?> type) {
		Set<Class<?>> all = new LinkedHashSet<>();
		collect(type, all);
		return all;
	}

	private static void collect(Class<?> type, Set<Class<?>> all) {
		if (all.add(type)) {
			for (Class<?> parent : type.getInterfaces()) {
				collect(parent, all);
			}
		}
	}

	/** {@code JedisInternals}: fields read through reflection. */
	private static void registerJedisInternals(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.reflection()
			.registerTypeIfPresent(classLoader, "redis.clients.jedis.builders.ClusterClientBuilder",
					(type) -> type.withField("maxAttempts")
						.withField("maxTotalRetriesDuration")
						.withField("nodes")
						.withField("topologyRefreshPeriod"));
		hints.reflection()
			.registerTypeIfPresent(classLoader, "redis.clients.jedis.builders.AbstractClientBuilder",
					(type) -> type.withField("clientConfig")
						.withField("poolConfig")
						.withField("cache")
						.withField("cacheConfig")
						.withField("connectionProvider"));
		hints.reflection()
			.registerTypeIfPresent(classLoader, "redis.clients.jedis.UnifiedJedis",
					(type) -> type.withField("provider"));
	}

	/**
	 * {@code LettuceInternals}: fields read through private lookups, a package-private
	 * method called through one, the factory method Slotwise's cluster client overrides
	 * (looked up on Lettuce's client and on Slotwise's).
	 */
	private static void registerLettuceInternals(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.reflection()
			.registerTypeIfPresent(classLoader, "io.lettuce.core.protocol.DefaultEndpoint",
					(type) -> type.withField("channel"));
		hints.reflection()
			.registerTypeIfPresent(classLoader, "io.lettuce.core.CommandListenerWriter",
					(type) -> type.withField("listener"));
		hints.reflection()
			.registerTypeIfPresent(classLoader, "io.lettuce.core.event.connection.ConnectionEventSupport",
					(type) -> type.withMethod("getEpId", List.of(), ExecutableMode.INVOKE));
		// Looked up with getDeclaredMethod: a type hint includes introspection of its
		// members.
		hints.reflection().registerTypeIfPresent(classLoader, "io.lettuce.core.cluster.RedisClusterClient");
		hints.reflection()
			.registerTypeIfPresent(classLoader, "dev.slotwise.internal.topology.SamplingRedisClusterClient");
	}

	/**
	 * {@code SpringDataInternals}: the constructor of {@code JedisClusterTopology}
	 * (private lookup) and the constructors and pipeline methods checked before a Jedis
	 * cluster pipeline is replayed.
	 */
	private static void registerSpringDataInternals(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		if (!ClassUtils.isPresent("redis.clients.jedis.Jedis", classLoader)) {
			return;
		}
		hints.reflection()
			.registerType(TypeReference
				.of("org.springframework.data.redis.connection.jedis.JedisClusterConnection$JedisClusterTopology"),
					(type) -> type.withConstructor(TypeReference.listOf(Set.class, long.class, long.class),
							ExecutableMode.INVOKE));
		// Constructors and methods only looked up: a type hint includes introspection of
		// its members.
		hints.reflection().registerType(TypeReference.of("redis.clients.jedis.Jedis"));
		hints.reflection()
			.registerType(TypeReference.of("org.springframework.data.redis.connection.jedis.JedisConnection"));
	}

	/**
	 * {@code SpringBootInternals}: the {@code @Import} of Spring Boot's Redis
	 * auto-configuration and the declared methods of the classes it imports.
	 */
	private static void registerSpringBootInternals(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		for (String name : SpringBootInternals.connectionFactoryDeclarers()) {
			hints.reflection().registerTypeIfPresent(classLoader, name);
		}
	}

}
