package dev.slotwise.autoconfigure;

import dev.slotwise.internal.observation.MultiKeyObservations;
import dev.slotwise.internal.observation.NearCacheObservations;
import dev.slotwise.internal.observation.PipelineObservations;
import dev.slotwise.internal.observation.TransactionObservations;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Micrometer Observations of Slotwise's cross-slot multi-key calls
 * ({@code slotwise.multikey}) and cluster pipelines ({@code slotwise.pipeline}), each
 * with one child per node batch, and of transactions ({@code slotwise.transaction}) and
 * of the near cache's reads sent to Redis ({@code slotwise.near-cache}), on both clients,
 * when the application has an {@link ObservationRegistry} (Spring Boot's, with Actuator).
 * Lettuce's own per-command observations, which Spring Boot's
 * {@code LettuceObservationAutoConfiguration} turns on with the same registry, do not
 * depend on this: the engine keeps them either way.
 * {@code slotwise.observations.enabled=false} turns Slotwise's own off.
 */
@AutoConfiguration(
		afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass({ RedisConnectionFactory.class, ObservationRegistry.class })
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = "slotwise.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "slotwise.observations.enabled", matchIfMissing = true)
@Conditional(OnSupportedLibrariesCondition.class)
public final class SlotwiseObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MultiKeyObservations slotwiseMultiKeyObservations(ObservationRegistry registry) {
		return new MultiKeyObservations(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	PipelineObservations slotwisePipelineObservations(ObservationRegistry registry) {
		return new PipelineObservations(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "slotwise.near-cache.enabled")
	NearCacheObservations slotwiseNearCacheObservations(ObservationRegistry registry) {
		return new NearCacheObservations(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	TransactionObservations slotwiseTransactionObservations(ObservationRegistry registry) {
		return new TransactionObservations(registry);
	}

}
