package dev.slotwise.autoconfigure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.slotwise.internal.compat.FastPath;
import dev.slotwise.internal.health.FastPaths;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Reports which of Slotwise's fast paths (each relying on a library internal or extension
 * point) are active: one log line per Slotwise connection factory once the context has
 * started (INFO when all are, WARN naming what is missing and what happens instead
 * otherwise), and, with Actuator, a {@code slotwise.fastPaths} entry of the {@code info}
 * endpoint. The health details of {@code redis} say the same.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, SlotwiseAutoConfiguration.class })
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "slotwise.enabled", matchIfMissing = true)
@Conditional(OnSupportedLibrariesCondition.class)
public final class SlotwiseFastPathsAutoConfiguration {

	private static final Log logger = LogFactory.getLog(SlotwiseFastPathsAutoConfiguration.class);

	SlotwiseFastPathsAutoConfiguration() {
	}

	@Bean
	static ApplicationListener<ContextRefreshedEvent> slotwiseFastPathsLog(ApplicationContext context) {
		return (event) -> {
			// Once, for the context that declares the factories (not for child contexts
			// that share them).
			if (event.getApplicationContext() != context) {
				return;
			}
			fastPaths(context).forEach((name, fastPaths) -> {
				String line = "Slotwise fast paths of '" + name + "': " + FastPaths.summarize(fastPaths);
				if (fastPaths.stream().allMatch(FastPath::active)) {
					logger.info(line);
				}
				else {
					logger.warn(line);
				}
			});
		};
	}

	/**
	 * The fast paths of each Slotwise connection factory, by bean name.
	 */
	static Map<String, List<FastPath>> fastPaths(ListableBeanFactory beans) {
		Map<String, List<FastPath>> fastPaths = new LinkedHashMap<>();
		beans.getBeansOfType(RedisConnectionFactory.class, false, false).forEach((name, factory) -> {
			List<FastPath> paths = FastPaths.of(factory);
			if (!paths.isEmpty()) {
				fastPaths.put(name, paths);
			}
		});
		return fastPaths;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(InfoContributor.class)
	static class InfoConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "slotwiseInfoContributor")
		InfoContributor slotwiseInfoContributor(ListableBeanFactory beans) {
			return (builder) -> {
				Map<String, List<FastPath>> fastPaths = fastPaths(beans);
				if (fastPaths.size() == 1) {
					builder.withDetail("slotwise",
							Map.of("fastPaths", FastPaths.describe(fastPaths.values().iterator().next())));
				}
				else if (!fastPaths.isEmpty()) {
					Map<String, Object> byFactory = new LinkedHashMap<>();
					fastPaths
						.forEach((name, paths) -> byFactory.put(name, Map.of("fastPaths", FastPaths.describe(paths))));
					builder.withDetail("slotwise", byFactory);
				}
			};
		}

	}

}
