package dev.slotwise.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configuration for Slotwise: tuned connection pools with pre-warm, a cluster
 * topology provider that spreads and caches refreshes, slot-aware parallel multi-key
 * commands, and their meters, all behind the {@code RedisTemplate} the application
 * already injects.
 * <p>
 * Runs before Spring Boot's {@link DataRedisAutoConfiguration}, whose connection factory
 * it tunes through customizers and, in cluster mode, replaces by a Slotwise subclass with
 * the same configuration. An application that declares its own
 * {@link RedisConnectionFactory} keeps it untouched. {@code slotwise.enabled=false} turns
 * everything off. On libraries older than Slotwise is built for (Spring Boot 4.0.x) it
 * stays off and logs one WARN ({@code OnSupportedLibrariesCondition}).
 */
@AutoConfiguration(before = DataRedisAutoConfiguration.class)
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "slotwise.enabled", matchIfMissing = true)
@Conditional(OnSupportedLibrariesCondition.class)
@EnableConfigurationProperties(SlotwiseProperties.class)
@Import({ SlotwisePoolConfiguration.class, SlotwiseJedisConfiguration.class, SlotwiseLettuceConfiguration.class,
		SlotwiseTopologyConfiguration.class, SlotwiseClusterConnectionConfiguration.class,
		SlotwiseMultiKeyConfiguration.class, SlotwisePipelineConfiguration.class, SlotwiseKeyspaceConfiguration.class,
		SlotwisePubSubConfiguration.class, SlotwiseTransactionConfiguration.class, SlotwiseNearCacheConfiguration.class,
		SlotwiseMetersConfiguration.class })
public final class SlotwiseAutoConfiguration {

}
