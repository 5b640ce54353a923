package dev.slotwise.internal.multikey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import dev.slotwise.internal.routing.SlotHash;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.lettuce.core.event.command.CommandFailedEvent;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.lettuce.core.event.command.CommandSucceededEvent;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each node batch of a cross-slot call over Lettuce reaches the socket as one encoded
 * buffer, counted where Lettuce's channel pipeline hands buffers to the socket, while the
 * servers count one {@code MGET} per slot: a call of 1,000 random keys (about 1,000 slots
 * on 3 masters) writes a handful of buffers, not one per slot. Lettuce's own
 * {@code write(Collection)} produced one buffer (and one event-loop task, promise and
 * listener) per command.
 */
@WithRedisCluster
class LettuceBatchWriteIntegrationTests {

	private static final int KEYS = 1000;

	private static final Duration WAIT = Duration.ofSeconds(10);

	@Test
	void aCrossSlotMultiGetWritesOneBufferPerNodeBatch(RedisTestCluster cluster) {
		cluster.reset();
		runner(cluster).run((context) -> {
			assertThat(context).hasNotFailed();
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			List<String> keys = populate(template);
			BufferCounter counter = context.getBean(BufferCounter.class);
			for (int call = 0; call < 5; call++) {
				List<String> request = pick(keys, call);
				cluster.resetStats();
				long before = counter.buffers.get();
				assertThat(template.opsForValue().multiGet(request)).isEqualTo(valuesOf(request));
				long buffers = counter.buffers.get() - before;
				assertThat(mgets(cluster)).as("MGETs the servers ran").isEqualTo(slots(request));
				// One per master (a window holds up to 10,000 commands); a little room
				// for the client's own traffic.
				assertThat(buffers).as("buffers written for %d MGETs", slots(request)).isBetween(3L, 6L);
			}
		});
	}

	@Test
	void aReactiveCrossSlotMultiGetWritesOneBufferPerNodeBatch(RedisTestCluster cluster) {
		cluster.reset();
		runner(cluster).run((context) -> {
			assertThat(context).hasNotFailed();
			List<String> keys = populate(context.getBean(StringRedisTemplate.class));
			ReactiveStringRedisTemplate template = new ReactiveStringRedisTemplate(
					context.getBean(ReactiveRedisConnectionFactory.class));
			BufferCounter counter = context.getBean(BufferCounter.class);
			List<String> request = pick(keys, 7);
			assertThat(template.opsForValue().multiGet(request).block(WAIT)).isEqualTo(valuesOf(request));
			cluster.resetStats();
			long before = counter.buffers.get();
			assertThat(template.opsForValue().multiGet(request).block(WAIT)).isEqualTo(valuesOf(request));
			assertThat(mgets(cluster)).isEqualTo(slots(request));
			assertThat(counter.buffers.get() - before).isBetween(3L, 6L);
		});
	}

	/**
	 * With a {@code CommandListener} on the client (Lettuce puts a
	 * {@code CommandListenerWriter} in front of each node connection), the node batches
	 * still go out as one buffer each, and the listener hears of every {@code MGET} the
	 * servers ran, started and succeeded, as it does of Lettuce's own {@code MGET}s with
	 * Slotwise off.
	 */
	@Test
	void aCommandListenerSeesEveryCommandOfTheOneBufferNodeBatches(RedisTestCluster cluster) {
		cluster.reset();
		long[] heard = new long[2];
		for (boolean slotwise : new boolean[] { true, false }) {
			runner(cluster).withPropertyValues("slotwise.enabled=" + slotwise, "slotwise.pool.prewarm=false")
				.withUserConfiguration(ListeningClient.class)
				.run((context) -> {
					assertThat(context).hasNotFailed();
					StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
					List<String> keys = populate(template);
					MgetListener listener = context.getBean(MgetListener.class);
					BufferCounter counter = context.getBean(BufferCounter.class);
					List<String> request = pick(keys, 11);
					assertThat(template.opsForValue().multiGet(request)).isEqualTo(valuesOf(request));
					cluster.resetStats();
					listener.reset();
					long before = counter.buffers.get();
					assertThat(template.opsForValue().multiGet(request)).isEqualTo(valuesOf(request));
					long buffers = counter.buffers.get() - before;
					long mgets = mgets(cluster);
					assertThat(mgets).isEqualTo(slots(request));
					assertThat(listener.started.get()).as("MGETs the listener heard start").isEqualTo(mgets);
					assertThat(listener.succeeded.get()).as("MGETs the listener heard succeed").isEqualTo(mgets);
					assertThat(listener.failed.get()).isZero();
					if (slotwise) {
						assertThat(buffers).as("buffers written for %d MGETs", mgets).isBetween(3L, 6L);
					}
					heard[slotwise ? 0 : 1] = listener.succeeded.get();
				});
		}
		assertThat(heard[0]).as("heard with Slotwise").isEqualTo(heard[1]);
	}

	private static ApplicationContextRunner runner(RedisTestCluster cluster) {
		return MultiKeyTestSupport.runner("lettuce", cluster).withUserConfiguration(CountingBuffers.class);
	}

	private static List<String> populate(StringRedisTemplate template) {
		Map<String, String> values = new LinkedHashMap<>();
		for (int i = 0; i < 4 * KEYS; i++) {
			values.put("bw:" + i, "v" + i);
		}
		template.opsForValue().multiSet(values);
		return List.copyOf(values.keySet());
	}

	private static List<String> pick(List<String> keys, long seed) {
		Random random = new Random(seed);
		List<String> picked = new ArrayList<>(KEYS);
		for (int i = 0; i < KEYS; i++) {
			picked.add(keys.get(random.nextInt(keys.size())));
		}
		return picked;
	}

	private static List<String> valuesOf(List<String> keys) {
		return keys.stream().map((key) -> "v" + key.substring("bw:".length())).toList();
	}

	private static long slots(List<String> keys) {
		Set<Integer> slots = new HashSet<>();
		for (String key : keys) {
			slots.add(SlotHash.slot(key.getBytes()));
		}
		return slots.size();
	}

	private static long mgets(RedisTestCluster cluster) {
		return cluster.masters().stream().mapToLong((node) -> cluster.commandCalls(node, "mget")).sum();
	}

	@Configuration(proxyBeanMethods = false)
	static class CountingBuffers {

		@Bean
		BufferCounter bufferCounter() {
			return new BufferCounter();
		}

		@Bean
		ClientResourcesBuilderCustomizer countBuffers(BufferCounter counter) {
			return (builder) -> builder.nettyCustomizer(new NettyCustomizer() {

				@Override
				public void afterChannelInitialized(Channel channel) {
					// Nearest the socket: what passes here is what Lettuce's encoder
					// produced.
					channel.pipeline().addFirst(counter);
				}

			});
		}

	}

	/**
	 * Registers a {@link MgetListener} on the factory's client as soon as it exists (the
	 * factory starts when it is initialized), before any connection is opened: Lettuce
	 * gives only connections opened afterwards its writer.
	 */
	@Configuration(proxyBeanMethods = false)
	static class ListeningClient {

		@Bean
		static MgetListener mgetListener() {
			return new MgetListener();
		}

		@Bean
		static BeanPostProcessor registerMgetListener(ObjectProvider<MgetListener> listener) {
			return new BeanPostProcessor() {

				@Override
				public Object postProcessAfterInitialization(Object bean, String beanName) {
					if (bean instanceof LettuceConnectionFactory factory) {
						factory.getRequiredNativeClient().addListener(listener.getObject());
					}
					return bean;
				}

			};
		}

	}

	/**
	 * Counts the {@code MGET}s a command listener hears of.
	 */
	static final class MgetListener implements CommandListener {

		final AtomicLong started = new AtomicLong();

		final AtomicLong succeeded = new AtomicLong();

		final AtomicLong failed = new AtomicLong();

		void reset() {
			this.started.set(0);
			this.succeeded.set(0);
			this.failed.set(0);
		}

		@Override
		public void commandStarted(CommandStartedEvent event) {
			if (event.getCommand().getType() == CommandType.MGET) {
				this.started.incrementAndGet();
			}
		}

		@Override
		public void commandSucceeded(CommandSucceededEvent event) {
			if (event.getCommand().getType() == CommandType.MGET) {
				this.succeeded.incrementAndGet();
			}
		}

		@Override
		public void commandFailed(CommandFailedEvent event) {
			if (event.getCommand().getType() == CommandType.MGET) {
				this.failed.incrementAndGet();
			}
		}

	}

	/**
	 * Counts the buffers written to any of the client's sockets.
	 */
	@Sharable
	static final class BufferCounter extends ChannelOutboundHandlerAdapter {

		final AtomicLong buffers = new AtomicLong();

		@Override
		public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
			if (msg instanceof ByteBuf) {
				this.buffers.incrementAndGet();
			}
			super.write(ctx, msg, promise);
		}

	}

}
