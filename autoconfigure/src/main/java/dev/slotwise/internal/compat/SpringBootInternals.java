package dev.slotwise.internal.compat;

import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The one place Slotwise reaches into Spring Boot: which classes declare the bean methods
 * of Spring Boot's Redis connection factories. Spring Boot's
 * {@code DataRedisAutoConfiguration} (public) imports them, and they are package-private;
 * their names are read from its {@code @Import} rather than written here, so that the
 * replacement of Spring Boot's factory by Slotwise's recognises Spring Boot's factory,
 * and only it (a factory the application declares is never touched). No supported API
 * says which bean Spring Boot's auto-configuration created.
 * <p>
 * Read once, when this class loads; {@link #factoryReplacement()} says whether an
 * imported class declares a connection factory bean method. When none does (a Spring Boot
 * that arranged its configuration otherwise), Spring Boot's factory stays in place
 * without Slotwise's cluster features, and start-up logs it.
 */
public final class SpringBootInternals {

	/** What {@link #factoryReplacement()} relies on. */
	static final String DECLARERS = "the @Import of " + DataRedisAutoConfiguration.class.getName()
			+ " (its package-private connection configurations)";

	private static final Set<String> IMPORTED;

	private static final @Nullable String PROBLEM;

	static {
		Set<String> imported = new LinkedHashSet<>();
		boolean declaresFactory = false;
		Import imports = DataRedisAutoConfiguration.class.getAnnotation(Import.class);
		if (imports != null) {
			for (Class<?> type : imports.value()) {
				imported.add(type.getName());
				declaresFactory = declaresFactory || declaresConnectionFactory(type);
			}
		}
		IMPORTED = Set.copyOf(imported);
		PROBLEM = declaresFactory ? null : "no class " + DataRedisAutoConfiguration.class.getSimpleName() + " imports ("
				+ imported + ") declares a RedisConnectionFactory bean method";
	}

	private SpringBootInternals() {
	}

	private static boolean declaresConnectionFactory(Class<?> type) {
		try {
			for (Method method : type.getDeclaredMethods()) {
				if (RedisConnectionFactory.class.isAssignableFrom(method.getReturnType())) {
					return true;
				}
			}
			return false;
		}
		catch (LinkageError | RuntimeException ex) {
			// Its signatures name a client that is not on the class path (Jedis's
			// configuration without Jedis).
			return false;
		}
	}

	/**
	 * Describes how Slotwise recognises the connection factory Spring Boot's
	 * auto-configuration created.
	 * @return the fast path, active when an imported class declares a connection factory
	 * bean method
	 */
	public static FastPath factoryReplacement() {
		return new FastPath("spring-boot-factory-replacement", DECLARERS,
				"Spring Boot's connection factory is left in place, without Slotwise's cluster features", PROBLEM);
	}

	/**
	 * Returns the names of the classes whose bean methods create Spring Boot's Redis
	 * connection factories: those {@code DataRedisAutoConfiguration} imports, and the
	 * auto-configuration itself.
	 * @return the class names; only the auto-configuration's when
	 * {@link #factoryReplacement()} is not active
	 */
	public static Set<String> connectionFactoryDeclarers() {
		Set<String> declarers = new LinkedHashSet<>();
		if (PROBLEM == null) {
			declarers.addAll(IMPORTED);
		}
		declarers.add(DataRedisAutoConfiguration.class.getName());
		return Set.copyOf(declarers);
	}

}
