package dev.slotwise.internal.pubsub;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.slotwise.internal.health.PubSubHealthIndicator;
import dev.slotwise.internal.metrics.PubSubMeters;
import dev.slotwise.internal.routing.SlotHash;
import dev.slotwise.pubsub.ShardedChannelTopic;
import dev.slotwise.pubsub.ShardedMessageListenerContainer;
import dev.slotwise.pubsub.ShardedPubSub;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Protocol;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sharded pub/sub on 1,000 channels across all slots: every message published with
 * {@code SPUBLISH} is received, before and after 100 of the channels' slots migrate to
 * another master (the server unsubscribes them there) and after a master fails over.
 * While the failover runs, a publisher keeps publishing: the servers' replies to
 * {@code SPUBLISH} (how many subscribers received each message) count what was lost, and
 * every message a server delivered is received, once.
 */
@WithRedisCluster(dedicated = true)
class ShardedPubSubIntegrationTests {

	private static final int CHANNELS = 1000;

	private static final String NAME = "slotwise-sharded";

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void everyMessageOfEveryChannelAcrossMigrationAndFailover(String client, RedisTestCluster cluster) {
		long started = System.nanoTime();
		PubSubTestSupport.runner(client, cluster, NAME).run((context) -> {
			ShardedPubSub pubSub = context.getBean(ShardedPubSub.class);
			ShardedMessageListenerContainer container = context.getBean(ShardedMessageListenerContainer.class);
			SimpleMeterRegistry registry = new SimpleMeterRegistry();
			context.getBean(PubSubMeters.class).bindTo(registry);
			Recorder recorder = new Recorder();
			List<String> channels = new ArrayList<>();
			for (int i = 0; i < CHANNELS; i++) {
				channels.add("sch:" + client + ":" + i);
			}
			container.addMessageListener(recorder,
					channels.stream().map(ShardedChannelTopic::of).toArray(ShardedChannelTopic[]::new));
			awaitSubscribed(cluster, channels);

			round(client + "/before", pubSub, recorder, channels, true);

			// 100 slots of the channels of one master move to another; the server
			// unsubscribes their channels.
			RedisNode[] owners = PubSubTestSupport.slotOwners(cluster);
			RedisNode source = cluster.masters().get(0);
			RedisNode target = cluster.masters().get(1);
			Set<Integer> slots = new LinkedHashSet<>();
			for (String channel : channels) {
				int slot = SlotHash.slot(channel.getBytes(StandardCharsets.UTF_8));
				if (source.equals(owners[slot]) && slots.size() < 100) {
					slots.add(slot);
				}
			}
			long moved = channels.stream()
				.filter((channel) -> slots.contains(SlotHash.slot(channel.getBytes(StandardCharsets.UTF_8))))
				.count();
			PubSubTestSupport.moveSlots(cluster, List.copyOf(slots), source, target);
			awaitSubscribed(cluster, channels);
			round(client + "/after-migration", pubSub, recorder, channels, true);
			// What the meters and the health details say, against what the servers
			// showed.
			double resubscribed = registry.get(PubSubMeters.RESUBSCRIPTIONS)
				.tag("client", client)
				.tag("kind", "sharded")
				.functionCounter()
				.count();
			double subscribed = registry.find(PubSubMeters.SUBSCRIPTIONS)
				.tag("client", client)
				.tag("kind", "sharded")
				.gauges()
				.stream()
				.mapToDouble(Gauge::value)
				.sum();
			double receivedCount = registry.find(PubSubMeters.RECEIVED)
				.tag("client", client)
				.tag("kind", "sharded")
				.functionCounters()
				.stream()
				.mapToDouble(FunctionCounter::count)
				.sum();
			Map<String, Object> details = context.getBean(PubSubHealthIndicator.class).health(true).getDetails();
			System.out.printf(
					"[sharded] %s/meters: moved channels=%d, resubscriptions=%.0f, subscriptions=%.0f, "
							+ "received=%.0f; health=%s%n",
					client, moved, resubscribed, subscribed, receivedCount, details.get("subscriptions"));
			assertThat(resubscribed).isEqualTo(moved);
			assertThat(subscribed).isEqualTo(CHANNELS);
			assertThat(receivedCount).isEqualTo(2 * CHANNELS);
			@SuppressWarnings("unchecked")
			Map<String, Integer> perNode = (Map<String, Integer>) details.get("subscriptionsPerNode");
			assertThat(perNode.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(CHANNELS);

			// A failover while a publisher keeps publishing.
			AtomicBoolean stop = new AtomicBoolean();
			AtomicLong published = new AtomicLong();
			AtomicLong unreceived = new AtomicLong();
			AtomicLong failed = new AtomicLong();
			Map<String, Boolean> delivered = new ConcurrentHashMap<>();
			Set<String> sentInWindow = ConcurrentHashMap.newKeySet();
			Thread publisher = new Thread(() -> {
				for (long seq = 0; !stop.get(); seq++) {
					String channel = channels.get((int) (seq % CHANNELS));
					String message = "failover:" + seq;
					try {
						sentInWindow.add(channel + "/" + message);
						long receivers = pubSub.publish(channel, message);
						published.incrementAndGet();
						if (receivers > 0) {
							delivered.put(channel + "/" + message, true);
						}
						else {
							unreceived.incrementAndGet();
						}
					}
					catch (RuntimeException ex) {
						failed.incrementAndGet();
					}
				}
			}, "sharded-test-publisher");
			publisher.start();
			PubSubTestSupport.failOver(cluster, cluster.masters().get(2));
			awaitSubscribed(cluster, channels);
			stop.set(true);
			publisher.join();
			PubSubTestSupport.await(Duration.ofSeconds(10),
					() -> delivered.keySet().stream().allMatch(recorder.received::containsKey));
			long missing = delivered.keySet().stream().filter((key) -> !recorder.received.containsKey(key)).count();
			long lost = sentInWindow.stream().filter((key) -> !recorder.received.containsKey(key)).count();
			System.out.printf(
					"[sharded] %s/failover-window: published=%d, received=%d, lost=%d (%.2f%%); "
							+ "replies: no subscriber=%d, publish failed=%d, delivered by the server=%d, of which not "
							+ "received=%d; duplicates=%d%n",
					client, sentInWindow.size(), sentInWindow.size() - lost, lost,
					100.0 * lost / Math.max(1, sentInWindow.size()), unreceived.get(), failed.get(), delivered.size(),
					missing, recorder.duplicates.get());
			assertThat(missing).as("messages the servers delivered but the listener did not get").isZero();
			// A client whose view still names the demoted master publishes there: a
			// replica serves SPUBLISH itself and forwards it within its shard, so the
			// message arrives while the reply counts no local subscriber.
			round(client + "/after-failover", pubSub, recorder, channels, false);
			assertThat(recorder.duplicates.get()).as("messages received twice").isZero();
		});
		System.out.printf("[sharded] %s: scenario took %d ms%n", client,
				Duration.ofNanos(System.nanoTime() - started).toMillis());
	}

	/**
	 * Waits until every channel is subscribed once, on the master owning its slot, as the
	 * servers count.
	 */
	private static void awaitSubscribed(RedisTestCluster cluster, List<String> channels) {
		boolean subscribed = PubSubTestSupport.await(Duration.ofSeconds(20), () -> {
			RedisNode[] owners = PubSubTestSupport.slotOwners(cluster);
			for (String channel : channels) {
				RedisNode owner = owners[SlotHash.slot(channel.getBytes(StandardCharsets.UTF_8))];
				if (numSub(cluster, owner, channel) != 1) {
					return false;
				}
			}
			return true;
		});
		assertThat(subscribed).as("every channel subscribed on its slot's master").isTrue();
		long total = 0;
		for (RedisNode master : cluster.masters()) {
			total += cluster.clients(master)
				.stream()
				.filter((c) -> NAME.equals(c.get("name")))
				.mapToLong((c) -> Long.parseLong(c.getOrDefault("ssub", "0")))
				.sum();
		}
		assertThat(total).as("sharded subscriptions over all masters (CLIENT LIST ssub)").isEqualTo(CHANNELS);
		for (RedisNode replica : cluster.replicas()) {
			assertThat(PubSubTestSupport.subscribers(cluster, replica, NAME, "ssub")).as("replica %s", replica)
				.isZero();
		}
	}

	private static long numSub(RedisTestCluster cluster, RedisNode node, String channel) {
		List<?> reply = (List<?>) cluster.withAdmin(node,
				(jedis) -> jedis.sendCommand(Protocol.Command.PUBSUB, "SHARDNUMSUB", channel));
		return (Long) reply.get(1);
	}

	private static void round(String name, ShardedPubSub pubSub, Recorder recorder, List<String> channels,
			boolean oneReplyEach) {
		long unreceivedAtServer = 0;
		Map<Long, Long> replies = new TreeMap<>();
		List<String> sent = new ArrayList<>();
		for (String channel : channels) {
			String message = name + ":" + channel;
			long reply = pubSub.publish(channel, message);
			replies.merge(reply, 1L, Long::sum);
			if (reply != 1) {
				unreceivedAtServer++;
			}
			sent.add(channel + "/" + message);
		}
		PubSubTestSupport.await(Duration.ofSeconds(10), () -> sent.stream().allMatch(recorder.received::containsKey));
		long received = sent.stream().filter(recorder.received::containsKey).count();
		System.out.printf("[sharded] %s: published=%d, server replies other than 1=%d %s, received=%d%n", name,
				sent.size(), unreceivedAtServer, replies, received);
		if (oneReplyEach) {
			assertThat(unreceivedAtServer).as("SPUBLISH replies other than one subscriber").isZero();
		}
		assertThat(received).isEqualTo(CHANNELS);
	}

	static final class Recorder implements MessageListener {

		final Map<String, Boolean> received = new ConcurrentHashMap<>();

		final AtomicLong duplicates = new AtomicLong();

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			String key = new String(message.getChannel(), StandardCharsets.UTF_8) + "/"
					+ new String(message.getBody(), StandardCharsets.UTF_8);
			if (this.received.putIfAbsent(key, true) != null) {
				this.duplicates.incrementAndGet();
			}
		}

	}

}
