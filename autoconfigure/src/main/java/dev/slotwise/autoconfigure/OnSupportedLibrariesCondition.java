package dev.slotwise.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport.ConditionAndOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Matches when the libraries on the class path have the API Slotwise is compiled against:
 * Spring Data Redis 4.1 (Spring Boot 4.1) and, for each client present, a Jedis with
 * {@code RedisClusterClient} (7.2+) and a Lettuce with {@code DriverInfo} (not in 6.8).
 * On older versions (Spring Boot 4.0.x brings Spring Data Redis 4.0, Jedis 7.0 and
 * Lettuce 6.8) Slotwise's classes would fail with
 * {@code NoClassDefFoundError}/{@code NoSuchMethodError} once they load, so the
 * auto-configurations back off before any of them is loaded, and one WARN names the
 * versions found: the application runs on plain Spring Data Redis.
 * <p>
 * Only class names are checked (no Slotwise class that links against the libraries is
 * loaded here). Ordered after the class and property conditions, so that
 * {@code slotwise.enabled=false} keeps it silent.
 */
@Order(Ordered.HIGHEST_PRECEDENCE + 50)
final class OnSupportedLibrariesCondition extends SpringBootCondition {

	private static final Log logger = LogFactory.getLog(OnSupportedLibrariesCondition.class);

	/**
	 * Spring Data Redis 4.1 types Slotwise uses (the Jedis client builder hook, the
	 * Lettuce client identity).
	 */
	private static final String[] SPRING_DATA_REDIS_4_1 = {
			"org.springframework.data.redis.connection.jedis.JedisClientBuilderCustomizer",
			"org.springframework.data.redis.util.RedisClientLibraryInfo" };

	private static final String JEDIS = "redis.clients.jedis.Jedis";

	/** Jedis's cluster client (7.2+), which Slotwise's Jedis path talks to. */
	private static final String JEDIS_CLUSTER_CLIENT = "redis.clients.jedis.RedisClusterClient";

	private static final String LETTUCE = "io.lettuce.core.RedisClient";

	/**
	 * Lettuce's client identity (absent from 6.8), which Slotwise's Lettuce factory sets.
	 */
	private static final String LETTUCE_DRIVER_INFO = "io.lettuce.core.DriverInfo";

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		ClassLoader classLoader = context.getClassLoader();
		List<String> missing = new ArrayList<>();
		for (String type : SPRING_DATA_REDIS_4_1) {
			if (!ClassUtils.isPresent(type, classLoader)) {
				missing.add(type);
			}
		}
		if (ClassUtils.isPresent(JEDIS, classLoader) && !ClassUtils.isPresent(JEDIS_CLUSTER_CLIENT, classLoader)) {
			missing.add(JEDIS_CLUSTER_CLIENT);
		}
		if (ClassUtils.isPresent(LETTUCE, classLoader) && !ClassUtils.isPresent(LETTUCE_DRIVER_INFO, classLoader)) {
			missing.add(LETTUCE_DRIVER_INFO);
		}
		if (missing.isEmpty()) {
			return ConditionOutcome.match("Spring Data Redis 4.1 API present");
		}
		String message = "Slotwise needs Spring Boot 4.1 or later (Spring Data Redis 4.1, Jedis 7.2+, Lettuce 7) "
				+ "but found " + versions(classLoader) + " (missing " + String.join(", ", missing)
				+ "): Slotwise is off and Redis runs on plain Spring Data Redis";
		if (!alreadyReported(context.getBeanFactory())) {
			logger.warn(message);
		}
		return ConditionOutcome.noMatch(message);
	}

	/**
	 * Whether this condition already reported its outcome in this application context (it
	 * guards more than one auto-configuration; the WARN should appear once).
	 */
	private static boolean alreadyReported(@Nullable ConfigurableListableBeanFactory beanFactory) {
		if (beanFactory == null) {
			return false;
		}
		return ConditionEvaluationReport.get(beanFactory)
			.getConditionAndOutcomesBySource()
			.values()
			.stream()
			.flatMap((outcomes) -> outcomes.stream())
			.map(ConditionAndOutcome::getCondition)
			.anyMatch(OnSupportedLibrariesCondition.class::isInstance);
	}

	private static String versions(ClassLoader classLoader) {
		StringBuilder found = new StringBuilder("Spring Boot ").append(SpringBootVersion.getVersion());
		found.append(", Spring Data Redis ")
			.append(version(classLoader, "org.springframework.data.redis.connection.RedisConnectionFactory",
					"org.springframework.data", "spring-data-redis"));
		if (ClassUtils.isPresent(JEDIS, classLoader)) {
			found.append(", Jedis ").append(version(classLoader, JEDIS, "redis.clients", "jedis"));
		}
		if (ClassUtils.isPresent(LETTUCE, classLoader)) {
			found.append(", Lettuce ").append(version(classLoader, LETTUCE, "io.lettuce", "lettuce-core"));
		}
		return found.toString();
	}

	/**
	 * The jar's Implementation-Version, else the version in its Maven pom.properties,
	 * else "unknown".
	 */
	private static String version(ClassLoader classLoader, String className, String groupId, String artifactId) {
		try {
			Package pkg = ClassUtils.forName(className, classLoader).getPackage();
			String version = (pkg != null) ? pkg.getImplementationVersion() : null;
			if (version != null) {
				// Lettuce's reads "7.5.2.RELEASE/<commit>"
				return (version.indexOf('/') > 0) ? version.substring(0, version.indexOf('/')) : version;
			}
		}
		catch (ClassNotFoundException | LinkageError ex) {
			// fall through to the Maven metadata
		}
		try (InputStream in = classLoader
			.getResourceAsStream("META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties")) {
			if (in != null) {
				Properties properties = new Properties();
				properties.load(in);
				return properties.getProperty("version", "unknown");
			}
		}
		catch (IOException ex) {
			// the version only decorates the message
		}
		return "unknown";
	}

}
