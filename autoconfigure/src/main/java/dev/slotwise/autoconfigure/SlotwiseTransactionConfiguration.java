package dev.slotwise.autoconfigure;

import dev.slotwise.internal.cluster.JedisClusterFeature;
import dev.slotwise.internal.cluster.LettuceClusterFeature;
import dev.slotwise.internal.cluster.TransactionFeature;
import dev.slotwise.internal.transaction.TransactionObserver;
import io.lettuce.core.RedisClient;
import redis.clients.jedis.Jedis;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Transactions on a cluster ({@code MULTI}/{@code EXEC}/{@code WATCH} for keys of one
 * slot, {@code SessionCallback}, {@code @Transactional}), which Spring Data Redis refuses
 * there, a feature of Slotwise's cluster connections.
 * {@code slotwise.transactions.enabled=false} leaves Spring Data Redis's refusal in place
 * and every other feature as it is.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "slotwise.transactions.enabled", matchIfMissing = true)
class SlotwiseTransactionConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Jedis.class, JedisConnectionFactory.class })
	static class JedisTransactionConfiguration {

		@Bean
		@Order(SlotwiseOrder.TRANSACTION_FEATURE)
		JedisClusterFeature slotwiseJedisTransactionFeature(ObjectProvider<TransactionObserver.Source> observers) {
			return TransactionFeature
				.jedis(() -> FeatureObservers.transaction(observers, SlotwiseJedisConfiguration.CLIENT));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ RedisClient.class, LettuceConnectionFactory.class })
	static class LettuceTransactionConfiguration {

		@Bean
		@Order(SlotwiseOrder.TRANSACTION_FEATURE)
		LettuceClusterFeature slotwiseLettuceTransactionFeature(ObjectProvider<TransactionObserver.Source> observers) {
			return TransactionFeature
				.lettuce(() -> FeatureObservers.transaction(observers, SlotwiseLettuceConfiguration.CLIENT));
		}

	}

}
