package dev.slotwise.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

import dev.slotwise.connection.SlotwiseJedisConnectionFactoryCustomizer;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactoryCustomizer;
import dev.slotwise.internal.multikey.JedisMultiKeySupport;
import dev.slotwise.internal.multikey.LettuceMultiKeySupport;
import dev.slotwise.internal.keyspace.KeyspaceSupport;
import dev.slotwise.internal.keyspace.ScanObserver;
import dev.slotwise.internal.keyspace.ScanSettings;
import dev.slotwise.internal.metrics.KeyspaceMeters;
import dev.slotwise.internal.metrics.MultiKeyMeters;
import dev.slotwise.internal.metrics.TransactionMeters;
import dev.slotwise.internal.multikey.MultiKeyExecutor;
import dev.slotwise.internal.multikey.MultiKeyObserver;
import dev.slotwise.internal.multikey.MultiKeySettings;
import dev.slotwise.internal.pipeline.PipelineMeters;
import dev.slotwise.internal.pipeline.PipelineObserver;
import dev.slotwise.internal.pubsub.PubSubObserver;
import dev.slotwise.internal.transaction.TransactionObserver;
import dev.slotwise.internal.pubsub.PubSubRuntime;
import dev.slotwise.multikey.MultiKeyReadFrom;
import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import redis.clients.jedis.Jedis;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.core.task.VirtualThreadTaskExecutor;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Slot-aware parallel multi-key commands for Slotwise's cluster connection factories, on Jedis (with its bounded
 * executor) and on Lettuce. {@code slotwise.multikey.enabled=false} leaves Spring Data Redis's multi-key commands in
 * place.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "slotwise.multikey.enabled", matchIfMissing = true)
class SlotwiseMultiKeyConfiguration {

	static final String COMMAND_TIMEOUT = "spring.data.redis.timeout";

	private static final Log logger = LogFactory.getLog(SlotwiseMultiKeyConfiguration.class);

	@Bean
	@ConditionalOnMissingBean
	MultiKeySettings slotwiseMultiKeySettings(SlotwiseProperties properties, Environment environment) {
		SlotwiseProperties.MultiKey multiKey = properties.getMultikey();
		Duration timeout = multiKey.getTimeout();
		// A dead node must fail a call no later than the application's own command timeout would: the engine's
		// batches do not run under the client's per-command timeout, so it takes the shorter of the two.
		Duration commandTimeout = Binder.get(environment).bind(COMMAND_TIMEOUT, Duration.class).orElse(null);
		if (commandTimeout != null && !commandTimeout.isNegative() && !commandTimeout.isZero()
				&& commandTimeout.compareTo(timeout) < 0) {
			timeout = commandTimeout;
		}
		return new MultiKeySettings(multiKey.getMaxKeysPerCommand(), multiKey.getMaxCommandsPerPipeline(), timeout,
				multiKey.getMaxRedirects());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Jedis.class, JedisConnectionFactory.class })
	static class JedisMultiKeyConfiguration {

		/**
		 * The executor of the Jedis engine's node batches. Lazy: created when a Slotwise Jedis cluster factory is
		 * customized (the only user), so that an application on Lettuce, or on Jedis without a cluster, gets neither
		 * the executor nor its threads. On virtual threads when the application enabled them, as Spring Boot's own
		 * Redis cluster executor is.
		 */
		@Bean(destroyMethod = "close")
		@Lazy
		@ConditionalOnMissingBean
		MultiKeyExecutor slotwiseMultiKeyExecutor(SlotwiseProperties properties, Environment environment,
				ObjectProvider<MultiKeyExecutorListener> listeners) {
			SlotwiseProperties.JedisExecutor executor = properties.getMultikey().getJedisExecutor();
			MultiKeyExecutor created = Threading.VIRTUAL.isActive(environment)
					? MultiKeyExecutor.create(executor.getThreads(), executor.getQueueCapacity(),
							new VirtualThreadTaskExecutor(executor.getThreadNamePrefix()).getVirtualThreadFactory(),
							executor.getAwaitTermination())
					: MultiKeyExecutor.create(executor.getThreads(), executor.getQueueCapacity(),
							executor.getThreadNamePrefix(), executor.getAwaitTermination());
			created.setInlineBatchBytes(executor.getInlineBatchSize().toBytes());
			listeners.orderedStream().forEach((listener) -> listener.executorCreated(created));
			return created;
		}

		@Bean
		@Order(SlotwiseOrder.MULTIKEY)
		SlotwiseJedisConnectionFactoryCustomizer slotwiseJedisMultiKeyCustomizer(SlotwiseProperties properties,
				MultiKeySettings settings, ObjectProvider<MultiKeyExecutor> executor,
				ObjectProvider<MultiKeyObserver.Source> meters, ObjectProvider<PipelineObserver.Source> pipelineMeters,
				ObjectProvider<PubSubRuntime> pubSubRuntime, ObjectProvider<PubSubObserver.Source> pubSubMeters,
				ObjectProvider<ScanObserver.Source> scanMeters,
				ObjectProvider<TransactionObserver.Source> transactionMeters) {
			MultiKeyReadFrom readFrom = properties.getMultikey().getReadFrom();
			return (factory) -> JedisMultiKeySupport
				.customizer(settings, executor.getObject(), observer(meters, SlotwiseJedisConfiguration.CLIENT),
						pipelineObserver(pipelineMeters, SlotwiseJedisConfiguration.CLIENT), readFrom,
						pubSubRuntime.getIfAvailable(), pubSubObserver(pubSubMeters, SlotwiseJedisConfiguration.CLIENT),
						properties.getKeyspace().isEnabled() ? KeyspaceSupport.jedis(scanSettings(properties),
								scanObserver(scanMeters, SlotwiseJedisConfiguration.CLIENT)) : null,
						properties.getTransactions().isEnabled()
								? transactionObserver(transactionMeters, SlotwiseJedisConfiguration.CLIENT) : null)
				.customize(factory);
		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(MeterRegistry.class)
		@ConditionalOnBooleanProperty(name = "slotwise.metrics.enabled", matchIfMissing = true)
		static class ExecutorMetersConfiguration {

			@Bean
			LazyExecutorMeters slotwiseMultiKeyExecutorMeters() {
				return new LazyExecutorMeters();
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ RedisClient.class, LettuceConnectionFactory.class })
	static class LettuceMultiKeyConfiguration {

		@Bean
		@Order(SlotwiseOrder.MULTIKEY)
		SlotwiseLettuceConnectionFactoryCustomizer slotwiseLettuceMultiKeyCustomizer(SlotwiseProperties properties,
				MultiKeySettings settings, ObjectProvider<MultiKeyObserver.Source> meters,
				ObjectProvider<PubSubRuntime> pubSubRuntime, ObjectProvider<PubSubObserver.Source> pubSubMeters,
				ObjectProvider<ScanObserver.Source> scanMeters,
				ObjectProvider<TransactionObserver.Source> transactionMeters) {
			MultiKeyReadFrom readFrom = properties.getMultikey().getReadFrom();
			return (factory) -> {
				// Only a Lettuce factory in use reaches here. Ignored rather than fatal: one configuration may serve
				// Jedis and Lettuce deployments, and over Lettuce the engine's reads already follow the application's
				// own ReadFrom.
				if (readFrom != MultiKeyReadFrom.MASTER) {
					logger.warn("slotwise.multikey.read-from="
							+ readFrom.name().toLowerCase(Locale.ROOT).replace('_', '-')
							+ " is ignored: it applies to Jedis only. Over Lettuce the multi-key engine's reads follow "
							+ "spring.data.redis.lettuce.read-from, as Lettuce's own reads do");
				}
				LettuceMultiKeySupport
					.customizer(settings, observer(meters, SlotwiseLettuceConfiguration.CLIENT),
							properties.getTopology().getMinRefreshInterval(), pubSubRuntime.getIfAvailable(),
							pubSubObserver(pubSubMeters, SlotwiseLettuceConfiguration.CLIENT),
							properties.getKeyspace().isEnabled() ? KeyspaceSupport.lettuce(scanSettings(properties),
									scanObserver(scanMeters, SlotwiseLettuceConfiguration.CLIENT)) : null,
							properties.getTransactions().isEnabled()
									? transactionObserver(transactionMeters, SlotwiseLettuceConfiguration.CLIENT) : null)
					.customize(factory);
			};
		}

	}

	/**
	 * Every pipeline observer the application has (Slotwise's meters, its observations), as one.
	 */
	private static PipelineObserver pipelineObserver(ObjectProvider<PipelineObserver.Source> sources, String client) {
		return PipelineObserver.of(sources.orderedStream().map((source) -> source.forClient(client)).toList());
	}

	private static ScanSettings scanSettings(SlotwiseProperties properties) {
		SlotwiseProperties.Keyspace keyspace = properties.getKeyspace();
		return new ScanSettings(keyspace.getConcurrency(), keyspace.getReadAhead(), keyspace.getFailoverTimeout(),
				keyspace.getTimeout());
	}

	private static ScanObserver scanObserver(ObjectProvider<ScanObserver.Source> meters, String client) {
		ScanObserver.Source available = meters.getIfAvailable();
		return (available != null) ? available.forClient(client) : ScanObserver.NONE;
	}

	/**
	 * Every multi-key observer the application has (Slotwise's meters, its observations), as one.
	 */
	private static MultiKeyObserver observer(ObjectProvider<MultiKeyObserver.Source> sources, String client) {
		return MultiKeyObserver.of(sources.orderedStream().map((source) -> source.forClient(client)).toList());
	}

	/**
	 * Every transaction observer the application has (Slotwise's meters), as one.
	 */
	private static TransactionObserver transactionObserver(ObjectProvider<TransactionObserver.Source> sources,
			String client) {
		List<TransactionObserver> observers = sources.orderedStream().map((source) -> source.forClient(client)).toList();
		return (outcome, commands, nanos) -> observers.forEach((observer) -> observer.ended(outcome, commands, nanos));
	}

	private static PubSubObserver pubSubObserver(ObjectProvider<PubSubObserver.Source> meters, String client) {
		PubSubObserver.Source available = meters.getIfAvailable();
		return (available != null) ? available.forClient(client) : PubSubObserver.NONE;
	}

	/**
	 * Multi-key and executor meters, when Micrometer is present and {@code slotwise.metrics.enabled} is not false:
	 * {@code MeterBinder} beans that Spring Boot binds to the application's registry.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBooleanProperty(name = "slotwise.metrics.enabled", matchIfMissing = true)
	static class MultiKeyMetersConfiguration {

		@Bean
		@ConditionalOnMissingBean
		MultiKeyMeters slotwiseMultiKeyMeters() {
			return new MultiKeyMeters();
		}

		@Bean
		@ConditionalOnMissingBean
		PipelineMeters slotwisePipelineMeters() {
			return new PipelineMeters();
		}

		@Bean
		@ConditionalOnMissingBean
		KeyspaceMeters slotwiseKeyspaceMeters() {
			return new KeyspaceMeters();
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBooleanProperty(name = "slotwise.transactions.enabled", matchIfMissing = true)
		TransactionMeters slotwiseTransactionMeters() {
			return new TransactionMeters();
		}

	}

}
