package dev.slotwise.autoconfigure;

import dev.slotwise.internal.metrics.PubSubMeters;
import dev.slotwise.internal.pubsub.PubSubRuntime;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The threads of pub/sub across the cluster, which Slotwise's cluster connections use to subscribe keyspace and
 * keyevent notifications on every master, and their meters. {@code slotwise.pubsub.enabled=false} leaves Spring Data
 * Redis's subscriptions (on one node) in place.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "slotwise.pubsub.enabled", matchIfMissing = true)
class SlotwisePubSubConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	PubSubRuntime slotwisePubSubRuntime(SlotwiseProperties properties) {
		SlotwiseProperties.PubSub pubSub = properties.getPubsub();
		return PubSubRuntime.create(pubSub.getCheckInterval(), pubSub.getTimeout(), pubSub.getThreadNamePrefix());
	}

	/**
	 * Pub/sub meters, when Micrometer is present and {@code slotwise.metrics.enabled} is not false.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBooleanProperty(name = "slotwise.metrics.enabled", matchIfMissing = true)
	static class PubSubMetersConfiguration {

		@Bean
		@ConditionalOnMissingBean
		PubSubMeters slotwisePubSubMeters() {
			return new PubSubMeters();
		}

	}

}
