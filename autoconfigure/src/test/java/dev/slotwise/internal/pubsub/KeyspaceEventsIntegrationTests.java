package dev.slotwise.internal.pubsub;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import dev.slotwise.internal.routing.SlotHash;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.PatternTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.session.data.redis.RedisIndexedSessionRepository;
import org.springframework.session.events.SessionExpiredEvent;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A standard {@link RedisMessageListenerContainer} listening to
 * {@code __keyevent@*__:expired} receives the expiry events of every master with Slotwise
 * (3,000 keys with short TTLs across all slots per phase, counted against each master's
 * {@code expired_keys}), before and after a master fails over, after a new master joins
 * with slots and after a master crashes and comes back as a replica; the same container
 * in the same test with {@code slotwise.enabled=false} receives one master's share at
 * most. The servers' {@code CLIENT LIST} shows one pattern subscription per master, none
 * on replicas.
 */
@WithRedisCluster(dedicated = true)
class KeyspaceEventsIntegrationTests {

	private static final int KEYS = 3000;

	private static final String ON = "slotwise-events-on";

	private static final String OFF = "slotwise-events-off";

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void expiryEventsOfEveryMasterAcrossFailoverAndScaleOut(String client, RedisTestCluster cluster) {
		PubSubTestSupport.notifyExpiries(cluster);
		long started = System.nanoTime();
		PubSubTestSupport.runner(client, cluster, ON)
			.withUserConfiguration(ListenerConfiguration.class)
			.run((on) -> PubSubTestSupport.runner(client, cluster, OFF)
				.withPropertyValues("slotwise.enabled=false")
				.withUserConfiguration(ListenerConfiguration.class)
				.run((off) -> {
					Recorder withSlotwise = on.getBean(Recorder.class);
					Recorder plain = off.getBean(Recorder.class);
					StringRedisTemplate writer = off.getBean(StringRedisTemplate.class);
					awaitSubscribedOnEveryMaster(cluster, "psub");

					phase(client + "/before", cluster, writer, withSlotwise, plain);

					// The master plain Spring Data Redis listens on, when it listens on a
					// master: it then hears nothing.
					List<RedisNode> masters = cluster.masters();
					RedisNode failing = masters.stream()
						.filter((master) -> PubSubTestSupport.subscribers(cluster, master, OFF, "psub") > 0)
						.findFirst()
						.orElse(masters.get(0));
					PubSubTestSupport.failOver(cluster, failing);
					awaitSubscribedOnEveryMaster(cluster, "psub");
					assertThat(PubSubTestSupport.subscribers(cluster, failing, ON, "psub"))
						.as("subscriptions left on the demoted master %s", failing)
						.isZero();
					phase(client + "/after-failover", cluster, writer, withSlotwise, plain);

					RedisNode added = cluster.addMaster();
					PubSubTestSupport.notifyExpiries(cluster, added);
					RedisNode source = cluster.masters()
						.stream()
						.filter((m) -> !m.equals(added))
						.findFirst()
						.orElseThrow();
					RedisNode[] owners = PubSubTestSupport.slotOwners(cluster);
					List<Integer> slots = new ArrayList<>();
					for (int slot = 0; slot < owners.length && slots.size() < 500; slot++) {
						if (source.equals(owners[slot])) {
							slots.add(slot);
						}
					}
					PubSubTestSupport.moveSlots(cluster, slots, source, added);
					awaitSubscribedOnEveryMaster(cluster, "psub");
					phase(client + "/after-scale-out", cluster, writer, withSlotwise, plain);

					// A master crashes, its replica takes over, and it comes back as a
					// replica.
					RedisNode crashed = cluster.masters()
						.stream()
						.filter((master) -> !cluster.replicasOf(master).isEmpty())
						.findFirst()
						.orElseThrow();
					PubSubTestSupport.killAndRestart(cluster, crashed);
					// A restarted server forgets CONFIG SET; it may become a master again
					// later in the class.
					PubSubTestSupport.notifyExpiries(cluster, crashed);
					awaitSubscribedOnEveryMaster(cluster, "psub");
					assertThat(PubSubTestSupport.subscribers(cluster, crashed, ON, "psub"))
						.as("subscriptions on the restarted node %s, now a replica", crashed)
						.isZero();
					phase(client + "/after-crash-and-restart", cluster, on.getBean(StringRedisTemplate.class),
							withSlotwise, plain);
				}));
		System.out.printf("[events] %s: class scenario took %d ms%n", client,
				Duration.ofNanos(System.nanoTime() - started).toMillis());
	}

	/**
	 * Spring Session's indexed repository, wired as its configuration wires it (a
	 * {@code RedisMessageListenerContainer} on {@code __keyevent@0__:expired},
	 * {@code __keyevent@0__:del} and its created-channel pattern), publishes a
	 * {@link SessionExpiredEvent} for every expired session with Slotwise; without, for
	 * those on one master at most.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void springSessionHearsEverySessionExpire(String client, RedisTestCluster cluster) {
		PubSubTestSupport.notifyExpiries(cluster);
		PubSubTestSupport.runner(client, cluster, ON)
			.withPropertyValues("test.namespace=spring:session:on")
			.withUserConfiguration(SessionConfiguration.class)
			.run((on) -> PubSubTestSupport.runner(client, cluster, OFF)
				.withPropertyValues("slotwise.enabled=false", "test.namespace=spring:session:off")
				.withUserConfiguration(SessionConfiguration.class)
				.run((off) -> {
					awaitSubscribedOnEveryMaster(cluster, "sub");
					Set<String> withSlotwise = createSessions(on, 90);
					Set<String> plain = createSessions(off, 90);
					ExpiredSessions expiredOn = on.getBean(ExpiredSessions.class);
					ExpiredSessions expiredOff = off.getBean(ExpiredSessions.class);
					PubSubTestSupport.await(Duration.ofSeconds(15), () -> expiredOn.ids.containsAll(withSlotwise));
					sleep(1000);
					long heardOn = withSlotwise.stream().filter(expiredOn.ids::contains).count();
					long heardOff = plain.stream().filter(expiredOff.ids::contains).count();
					System.out.printf(
							"[events] %s/spring-session: session-expired events with Slotwise %d of %d, "
									+ "without %d of %d%n",
							client, heardOn, withSlotwise.size(), heardOff, plain.size());
					assertThat(heardOn).isEqualTo(withSlotwise.size());
					assertThat(heardOff).isLessThan(plain.size() * 2 / 3);
				}));
	}

	private static Set<String> createSessions(ApplicationContext context, int count) {
		RedisIndexedSessionRepository repository = context.getBean(RedisIndexedSessionRepository.class);
		Set<String> ids = new LinkedHashSet<>();
		for (int i = 0; i < count; i++) {
			RedisIndexedSessionRepository.RedisSession session = repository.createSession();
			session.setAttribute("n", i);
			repository.save(session);
			ids.add(session.getId());
		}
		return ids;
	}

	private static void awaitSubscribedOnEveryMaster(RedisTestCluster cluster, String field) {
		List<RedisNode> masters = cluster.masters();
		boolean subscribed = PubSubTestSupport.await(Duration.ofSeconds(15), () -> masters.stream()
			.allMatch((master) -> PubSubTestSupport.subscribers(cluster, master, ON, field) == 1));
		Map<RedisNode, Long> perNode = new HashMap<>();
		for (RedisNode node : cluster.nodes()) {
			try {
				perNode.put(node, PubSubTestSupport.subscribers(cluster, node, ON, field));
			}
			catch (RuntimeException ex) {
				// A node stopped by the test.
			}
		}
		assertThat(subscribed).as("one pattern subscription on every master %s: %s", masters, perNode).isTrue();
		for (RedisNode replica : cluster.replicas()) {
			assertThat(PubSubTestSupport.subscribers(cluster, replica, ON, field)).as("replica %s", replica).isZero();
		}
	}

	private static void phase(String name, RedisTestCluster cluster, StringRedisTemplate writer, Recorder on,
			Recorder plain) {
		RedisNode[] owners = PubSubTestSupport.slotOwners(cluster);
		List<RedisNode> masters = new ArrayList<>(new LinkedHashSet<>(List.of(owners)));
		cluster.resetStats();
		on.clear();
		plain.clear();
		Map<String, Long> due = new HashMap<>();
		Map<String, RedisNode> ownerOf = new HashMap<>();
		for (int i = 0; i < KEYS; i++) {
			String key = "ks:" + name + ":" + i;
			long ttl = 200 + ThreadLocalRandom.current().nextInt(400);
			long sent = System.nanoTime();
			writer.opsForValue().set(key, "v", Duration.ofMillis(ttl));
			due.put(key, sent + Duration.ofMillis(ttl).toNanos());
			ownerOf.put(key, owners[SlotHash.slot(key.getBytes(StandardCharsets.UTF_8))]);
		}
		boolean allExpired = PubSubTestSupport.await(Duration.ofSeconds(30),
				() -> PubSubTestSupport.stat(cluster, masters, "expired_keys")
					.values()
					.stream()
					.mapToLong(Long::longValue)
					.sum() >= KEYS);
		PubSubTestSupport.await(Duration.ofSeconds(3), () -> on.count(due.keySet()) >= KEYS);
		sleep(500);
		Map<RedisNode, Long> expired = PubSubTestSupport.stat(cluster, masters, "expired_keys");
		long serverTotal = expired.values().stream().mapToLong(Long::longValue).sum();
		Map<RedisNode, Long> receivedOn = new HashMap<>();
		Map<RedisNode, Long> receivedOff = new HashMap<>();
		List<Long> latencies = new ArrayList<>();
		for (Map.Entry<String, Long> key : due.entrySet()) {
			Long at = on.received.get(key.getKey());
			if (at != null) {
				receivedOn.merge(ownerOf.get(key.getKey()), 1L, Long::sum);
				latencies.add(Math.max(0, at - key.getValue()));
			}
			if (plain.received.containsKey(key.getKey())) {
				receivedOff.merge(ownerOf.get(key.getKey()), 1L, Long::sum);
			}
		}
		latencies.sort(null);
		long onTotal = receivedOn.values().stream().mapToLong(Long::longValue).sum();
		long offTotal = receivedOff.values().stream().mapToLong(Long::longValue).sum();
		long largestShare = expired.values().stream().mapToLong(Long::longValue).max().orElse(0);
		System.out.printf(
				"[events] %s: masters=%d server expired=%d; slotwise received=%d (%.2f%%) duplicates=%d latency p50=%d ms "
						+ "p99=%d ms; plain received=%d (%.2f%%), largest master share=%d; per master (expired/slotwise/plain): %s%n",
				name, masters.size(), serverTotal, onTotal, 100.0 * onTotal / Math.max(1, serverTotal),
				on.duplicates.get(), PubSubTestSupport.percentile(latencies, 0.5) / 1_000_000,
				PubSubTestSupport.percentile(latencies, 0.99) / 1_000_000, offTotal,
				100.0 * offTotal / Math.max(1, serverTotal), largestShare,
				perMaster(masters, expired, receivedOn, receivedOff));
		assertThat(allExpired).as("every key expired on the masters").isTrue();
		assertThat(serverTotal).isEqualTo(KEYS);
		assertThat(onTotal).as("events received with Slotwise").isGreaterThanOrEqualTo((long) Math.ceil(0.99 * KEYS));
		for (RedisNode master : masters) {
			long fromServer = expired.get(master);
			assertThat(receivedOn.getOrDefault(master, 0L)).as("events of master %s", master)
				.isGreaterThanOrEqualTo((long) Math.ceil(0.95 * fromServer));
		}
		assertThat(on.duplicates.get()).as("events delivered twice").isZero();
		// Plain Spring Data Redis: one node's events at most, hence the difference.
		assertThat(offTotal).as("events received without Slotwise").isLessThanOrEqualTo(largestShare);
		assertThat(onTotal - offTotal).isGreaterThanOrEqualTo(KEYS - largestShare - KEYS / 100);
	}

	private static String perMaster(List<RedisNode> masters, Map<RedisNode, Long> expired, Map<RedisNode, Long> on,
			Map<RedisNode, Long> off) {
		List<String> parts = new ArrayList<>();
		for (RedisNode master : masters) {
			parts.add(master.port() + "=" + expired.get(master) + "/" + on.getOrDefault(master, 0L) + "/"
					+ off.getOrDefault(master, 0L));
		}
		return String.join(" ", parts);
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class ListenerConfiguration {

		@Bean
		Recorder recorder() {
			return new Recorder();
		}

		@Bean
		RedisMessageListenerContainer container(RedisConnectionFactory connectionFactory, Recorder recorder) {
			RedisMessageListenerContainer container = new RedisMessageListenerContainer();
			container.setConnectionFactory(connectionFactory);
			// Listeners on the receiving thread; Jedis subscribes blocking, on a thread
			// of its own.
			container.setTaskExecutor(new SyncTaskExecutor());
			container.setSubscriptionExecutor(new SimpleAsyncTaskExecutor("keyspace-subscriber-"));
			container.addMessageListener(recorder, new PatternTopic("__keyevent@*__:expired"));
			return container;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SessionConfiguration {

		@Bean
		RedisTemplate<String, Object> sessionRedisTemplate(RedisConnectionFactory connectionFactory) {
			RedisTemplate<String, Object> template = new RedisTemplate<>();
			template.setConnectionFactory(connectionFactory);
			template.setKeySerializer(RedisSerializer.string());
			template.setHashKeySerializer(RedisSerializer.string());
			return template;
		}

		@Bean
		RedisIndexedSessionRepository sessionRepository(RedisTemplate<String, Object> sessionRedisTemplate,
				ApplicationEventPublisher publisher, Environment environment) {
			RedisIndexedSessionRepository repository = new RedisIndexedSessionRepository(sessionRedisTemplate);
			repository.setApplicationEventPublisher(publisher);
			repository.setDefaultMaxInactiveInterval(Duration.ofSeconds(1));
			repository.setRedisKeyNamespace(environment.getRequiredProperty("test.namespace"));
			return repository;
		}

		@Bean
		RedisMessageListenerContainer sessionContainer(RedisConnectionFactory connectionFactory,
				RedisIndexedSessionRepository repository) {
			// The repository reads the session from Redis in its listener: never on the
			// receiving thread (over Lettuce, the event loop), hence the container's own
			// default executor, as Spring Session's configuration keeps it.
			RedisMessageListenerContainer container = new RedisMessageListenerContainer();
			container.setConnectionFactory(connectionFactory);
			container.addMessageListener(repository, List.of(new ChannelTopic(repository.getSessionDeletedChannel()),
					new ChannelTopic(repository.getSessionExpiredChannel())));
			container.addMessageListener(repository,
					new PatternTopic(repository.getSessionCreatedChannelPrefix() + "*"));
			return container;
		}

		@Bean
		ExpiredSessions expiredSessions() {
			return new ExpiredSessions();
		}

	}

	static final class ExpiredSessions implements ApplicationListener<SessionExpiredEvent> {

		final Set<String> ids = ConcurrentHashMap.newKeySet();

		@Override
		public void onApplicationEvent(SessionExpiredEvent event) {
			this.ids.add(event.getSessionId());
		}

	}

	static final class Recorder implements MessageListener {

		final Map<String, Long> received = new ConcurrentHashMap<>();

		final AtomicLong duplicates = new AtomicLong();

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			long now = System.nanoTime();
			if (this.received.putIfAbsent(new String(message.getBody(), StandardCharsets.UTF_8), now) != null) {
				this.duplicates.incrementAndGet();
			}
		}

		long count(Set<String> keys) {
			return keys.stream().filter(this.received::containsKey).count();
		}

		void clear() {
			this.received.clear();
			this.duplicates.set(0);
		}

	}

}
