package dev.slotwise.autoconfigure;

import java.time.Duration;

import dev.slotwise.internal.health.PubSubHealthIndicator;
import dev.slotwise.internal.metrics.PubSubMeters;
import dev.slotwise.internal.pubsub.PubSubRuntime;
import dev.slotwise.pubsub.ShardedMessageListenerContainer;
import dev.slotwise.pubsub.ShardedPubSub;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.Subscription;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.mockito.Mockito.mock;

/**
 * Wiring of pub/sub across the cluster: beans, back-off, properties. No Redis is
 * contacted.
 */
class SlotwisePubSubConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations
		.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class, SlotwisePubSubAutoConfiguration.class));

	@Test
	void providesTheRuntimeShardedPubSubContainerMetersAndHealth() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(PubSubRuntime.class);
			assertThat(context).hasSingleBean(ShardedPubSub.class);
			assertThat(context).hasSingleBean(ShardedMessageListenerContainer.class);
			assertThat(context).hasSingleBean(PubSubMeters.class);
			assertThat(context).hasSingleBean(PubSubHealthIndicator.class);
		});
	}

	@Test
	void shardedPubSubNamesWhatIsMissingWithoutAClusterFactory() {
		this.runner.run((context) -> assertThatIllegalStateException()
			.isThrownBy(() -> context.getBean(ShardedPubSub.class).publish("c", "m"))
			.withMessageContaining("spring.data.redis.cluster.nodes"));
	}

	@Test
	void bindsProperties() {
		this.runner.withPropertyValues("slotwise.pubsub.check-interval=250ms", "slotwise.pubsub.timeout=3s")
			.run((context) -> {
				SlotwiseProperties.PubSub pubSub = context.getBean(SlotwiseProperties.class).getPubsub();
				assertThat(pubSub.getCheckInterval()).isEqualTo(Duration.ofMillis(250));
				assertThat(pubSub.getTimeout()).isEqualTo(Duration.ofSeconds(3));
			});
	}

	@Test
	void rejectsAZeroCheckInterval() {
		this.runner.withPropertyValues("slotwise.pubsub.check-interval=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("slotwise.pubsub.check-interval"));
	}

	@Test
	void backsOffWhenPubSubIsDisabled() {
		this.runner.withPropertyValues("slotwise.pubsub.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(PubSubRuntime.class);
			assertThat(context).doesNotHaveBean(ShardedPubSub.class);
			assertThat(context).doesNotHaveBean(ShardedMessageListenerContainer.class);
		});
	}

	@Test
	void backsOffWhenSlotwiseIsDisabled() {
		this.runner.withPropertyValues("slotwise.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(PubSubRuntime.class);
			assertThat(context).doesNotHaveBean(ShardedPubSub.class);
		});
	}

	@Test
	void theContainerCanBeLeftOut() {
		this.runner.withPropertyValues("slotwise.pubsub.sharded-container=false").run((context) -> {
			assertThat(context).hasSingleBean(ShardedPubSub.class);
			assertThat(context).doesNotHaveBean(ShardedMessageListenerContainer.class);
		});
	}

	@Test
	void backsOffOnTheApplicationsOwnBeans() {
		this.runner.withUserConfiguration(OwnBeans.class).run((context) -> {
			assertThat(context).getBean(ShardedPubSub.class).isSameAs(context.getBean("ownShardedPubSub"));
			assertThat(context).getBean(ShardedMessageListenerContainer.class)
				.isSameAs(context.getBean("ownContainer"));
		});
	}

	@Test
	void withoutMicrometerThereAreNoMeters() {
		this.runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class)).run((context) -> {
			assertThat(context).hasSingleBean(PubSubRuntime.class);
			assertThat(context).doesNotHaveBean(PubSubMeters.class);
		});
	}

	@Test
	void theRuntimeIsClosedWithTheContext() {
		PubSubRuntime[] runtime = new PubSubRuntime[1];
		this.runner.run((context) -> runtime[0] = context.getBean(PubSubRuntime.class));
		assertThat(runtime[0].isClosed()).isTrue();
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnBeans {

		@Bean
		ShardedPubSub ownShardedPubSub() {
			return new ShardedPubSub() {

				@Override
				public long publish(byte[] channel, byte[] message) {
					return 0;
				}

				@Override
				public Subscription subscribe(MessageListener listener, byte[]... channels) {
					return mock(Subscription.class);
				}

			};
		}

		@Bean
		ShardedMessageListenerContainer ownContainer(ShardedPubSub pubSub) {
			return new ShardedMessageListenerContainer(pubSub);
		}

	}

}
