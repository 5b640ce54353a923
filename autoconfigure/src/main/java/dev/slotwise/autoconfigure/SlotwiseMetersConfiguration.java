package dev.slotwise.autoconfigure;

import dev.slotwise.internal.metrics.KeyspaceMeters;
import dev.slotwise.internal.metrics.MultiKeyMeters;
import dev.slotwise.internal.metrics.PipelineMeters;
import dev.slotwise.internal.metrics.PubSubMeters;
import dev.slotwise.internal.metrics.TopologyMeters;
import dev.slotwise.internal.metrics.TransactionMeters;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The meters of the cluster connections and their features, when Micrometer is present
 * and {@code slotwise.metrics.enabled} is not false: one {@code MeterBinder} bean per
 * feature, which Spring Boot binds to the application's registry, each only while its
 * feature is on (the same property its feature's configuration is conditional on), and
 * the Jedis multi-key executor's. Kept in one place so that the metrics conditions are
 * written once rather than once per feature. The pool's and the near cache's meters stay
 * with what they measure: their beans do more than bind meters (a customizer that has the
 * pool meters follow the factory's pools; the near cache's observer).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "slotwise.metrics.enabled", matchIfMissing = true)
class SlotwiseMetersConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "slotwise.topology.enabled", matchIfMissing = true)
	TopologyMeters slotwiseTopologyMeters() {
		return new TopologyMeters();
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "slotwise.multikey.enabled", matchIfMissing = true)
	MultiKeyMeters slotwiseMultiKeyMeters() {
		return new MultiKeyMeters();
	}

	// Pipelines are a Jedis feature only (Spring Data Redis pipelines Lettuce itself).
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "slotwise.pipeline.enabled", matchIfMissing = true)
	@ConditionalOnClass(name = { "redis.clients.jedis.Jedis",
			"org.springframework.data.redis.connection.jedis.JedisConnectionFactory" })
	PipelineMeters slotwisePipelineMeters() {
		return new PipelineMeters();
	}

	/**
	 * The Jedis multi-key executor's meters, bound once the executor exists: it is
	 * created only when a Slotwise Jedis cluster factory first needs it.
	 */
	@Bean
	@ConditionalOnClass(name = { "redis.clients.jedis.Jedis",
			"org.springframework.data.redis.connection.jedis.JedisConnectionFactory" })
	LazyExecutorMeters slotwiseMultiKeyExecutorMeters() {
		return new LazyExecutorMeters();
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "slotwise.keyspace.enabled", matchIfMissing = true)
	KeyspaceMeters slotwiseKeyspaceMeters() {
		return new KeyspaceMeters();
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "slotwise.pubsub.enabled", matchIfMissing = true)
	PubSubMeters slotwisePubSubMeters() {
		return new PubSubMeters();
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "slotwise.transactions.enabled", matchIfMissing = true)
	TransactionMeters slotwiseTransactionMeters() {
		return new TransactionMeters();
	}

}
