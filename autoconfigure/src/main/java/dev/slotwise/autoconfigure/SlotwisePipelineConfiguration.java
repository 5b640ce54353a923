package dev.slotwise.autoconfigure;

import dev.slotwise.internal.cluster.JedisClusterFeature;
import dev.slotwise.internal.cluster.PipelineFeature;
import dev.slotwise.internal.pipeline.PipelineObserver;
import redis.clients.jedis.Jedis;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * {@code executePipelined} on a cluster over Jedis (Spring Data Redis refuses it there),
 * a feature of Slotwise's cluster connections. {@code slotwise.pipeline.enabled=false}
 * leaves Spring Data Redis's refusal in place and every other feature as it is. Over
 * Lettuce, Spring Data Redis pipelines on a cluster itself.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "slotwise.pipeline.enabled", matchIfMissing = true)
@ConditionalOnClass({ Jedis.class, JedisConnectionFactory.class })
class SlotwisePipelineConfiguration {

	@Bean
	@Order(SlotwiseOrder.PIPELINE_FEATURE)
	JedisClusterFeature slotwiseJedisPipelineFeature(ObjectProvider<PipelineObserver.Source> observers) {
		return PipelineFeature.jedis(() -> FeatureObservers.pipeline(observers, SlotwiseJedisConfiguration.CLIENT));
	}

}
