package dev.slotwise.internal.pubsub;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.SlotHash;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.SubscriptionListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * How a {@link ClusterSubscription} places names on nodes and follows the topology, over
 * fake links.
 */
class ClusterSubscriptionTests {

	private static final NodeAddress A = new NodeAddress("127.0.0.1", 7001);

	private static final NodeAddress B = new NodeAddress("127.0.0.1", 7002);

	private static final NodeAddress C = new NodeAddress("127.0.0.1", 7003);

	private static final NodeAddress D = new NodeAddress("127.0.0.1", 7004);

	private static final byte[] EXPIRED = bytes("__keyevent@*__:expired");

	private static final byte[] NEWS = bytes("news");

	private final PubSubRuntime runtime = PubSubRuntime.create(Duration.ofHours(1), Duration.ofSeconds(1), "test-");

	private final FakeLinks links = new FakeLinks();

	private final Received received = new Received();

	private final CountingObserver observer = new CountingObserver();

	@AfterEach
	void close() {
		this.runtime.close();
	}

	private ClusterSubscription subscription(boolean sharded) {
		ClusterSubscription subscription = new ClusterSubscription(this.received, sharded, this.links, this.runtime,
				this.observer);
		subscription.start();
		return subscription;
	}

	@Test
	void keyspacePatternsGoToEveryMasterAndOrdinaryChannelsToOne() {
		this.links.masters(A, B, C);
		ClusterSubscription subscription = subscription(false);
		subscription.pSubscribe(EXPIRED);
		subscription.subscribe(NEWS);
		assertThat(this.links.holding(ChannelKind.PATTERN, EXPIRED)).containsExactlyInAnyOrder(A, B, C);
		assertThat(this.links.holding(ChannelKind.CHANNEL, NEWS)).hasSize(1);
	}

	@Test
	void theListenerHearsOfEachNameOnce() {
		this.links.masters(A, B, C);
		ClusterSubscription subscription = subscription(false);
		subscription.pSubscribe(EXPIRED);
		subscription.check();
		assertThat(this.received.patternsSubscribed).hasSize(1);
	}

	@Test
	void aPromotedReplicaIsSubscribedAndTheDemotedMasterDropped() {
		this.links.masters(A, B, C);
		ClusterSubscription subscription = subscription(false);
		subscription.pSubscribe(EXPIRED);
		FakeLink demoted = this.links.current(C);
		this.links.masters(A, B, D);
		subscription.check();
		assertThat(this.links.holding(ChannelKind.PATTERN, EXPIRED)).containsExactlyInAnyOrder(A, B, D);
		assertThat(demoted.closed).isTrue();
		assertThat(this.observer.resubscribed.get()).isEqualTo(1);
	}

	@Test
	void aDemotedMastersLeftoverMessagesAreNotDelivered() {
		this.links.masters(A, B, C);
		ClusterSubscription subscription = subscription(false);
		subscription.pSubscribe(EXPIRED);
		FakeLink demoted = this.links.current(C);
		this.links.masters(A, B, D);
		subscription.check();
		demoted.deliver(ChannelKind.PATTERN, bytes("__keyevent@0__:expired"), bytes("k1"), EXPIRED);
		this.links.current(D).deliver(ChannelKind.PATTERN, bytes("__keyevent@0__:expired"), bytes("k2"), EXPIRED);
		assertThat(this.received.bodies).containsExactly("k2");
	}

	@Test
	void aNewMasterIsSubscribedAtTheNextCheck() {
		this.links.masters(A, B, C);
		ClusterSubscription subscription = subscription(false);
		subscription.pSubscribe(EXPIRED);
		this.links.masters(A, B, C, D);
		subscription.check();
		assertThat(this.links.holding(ChannelKind.PATTERN, EXPIRED)).containsExactlyInAnyOrder(A, B, C, D);
	}

	@Test
	void aLostLinkIsReplacedSoon() throws InterruptedException {
		this.links.masters(A, B, C);
		ClusterSubscription subscription = subscription(false);
		subscription.pSubscribe(EXPIRED);
		FakeLink lost = this.links.current(B);
		lost.lose();
		assertThat(PubSubTestSupport.await(Duration.ofSeconds(5),
				() -> this.links.current(B) != lost && this.links.current(B).holds(ChannelKind.PATTERN, EXPIRED)))
			.isTrue();
	}

	@Test
	void aShardedChannelFollowsItsSlotWhenTheServerUnsubscribesIt() {
		this.links.masters(A, B, C);
		byte[] channel = bytes("orders");
		int slot = SlotHash.slot(channel);
		ClusterSubscription subscription = subscription(true);
		subscription.subscribe(channel);
		NodeAddress owner = this.links.owner(slot);
		assertThat(this.links.holding(ChannelKind.SHARD, channel)).containsExactly(owner);
		NodeAddress next = (owner.equals(A)) ? B : A;
		this.links.moveSlot(slot, next);
		this.links.current(owner).unsubscribedByServer(channel);
		assertThat(PubSubTestSupport.await(Duration.ofSeconds(5),
				() -> this.links.holding(ChannelKind.SHARD, channel).equals(List.of(next))))
			.isTrue();
	}

	@Test
	void aViewThatHasNotHeardOfANewMasterDoesNotDropIt() {
		this.links.masters(A, B, C);
		Masters old = this.links.current();
		ClusterSubscription subscription = subscription(false);
		subscription.pSubscribe(EXPIRED);
		this.links.masters(A, B, C, D);
		subscription.check();
		this.links.lagFrom(old);
		subscription.check();
		assertThat(this.links.holding(ChannelKind.PATTERN, EXPIRED)).containsExactlyInAnyOrder(A, B, C, D);
	}

	@Test
	void aLaggingViewDoesNotMoveAShardedChannelBack() {
		this.links.masters(A, B, C);
		byte[] channel = bytes("orders");
		int slot = SlotHash.slot(channel);
		ClusterSubscription subscription = subscription(true);
		subscription.subscribe(channel);
		NodeAddress owner = this.links.owner(slot);
		Masters old = this.links.current();
		NodeAddress next = (owner.equals(A)) ? B : A;
		this.links.moveSlot(slot, next);
		this.links.current(owner).unsubscribedByServer(channel);
		assertThat(PubSubTestSupport.await(Duration.ofSeconds(5),
				() -> this.links.holding(ChannelKind.SHARD, channel).equals(List.of(next))))
			.isTrue();
		this.links.lagFrom(old);
		subscription.check();
		assertThat(this.links.holding(ChannelKind.SHARD, channel)).containsExactly(next);
	}

	@Test
	void theFirstSubscriptionFailsWhenNoMasterAnswers() {
		this.links.masters(A, B, C);
		this.links.unreachable.addAll(List.of(A, B, C));
		ClusterSubscription subscription = subscription(false);
		assertThatExceptionOfType(RedisConnectionFailureException.class)
			.isThrownBy(() -> subscription.pSubscribe(EXPIRED));
	}

	@Test
	void unsubscribingTheLastNameClosesEveryLink() {
		this.links.masters(A, B, C);
		ClusterSubscription subscription = subscription(false);
		subscription.pSubscribe(EXPIRED);
		List<FakeLink> opened = List.copyOf(this.links.opened);
		subscription.pUnsubscribe();
		assertThat(subscription.isAlive()).isFalse();
		assertThat(opened).allMatch((link) -> link.closed);
		assertThat(this.runtime.openSubscriptions()).isZero();
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static final class FakeLinks implements NodeLinks {

		private final List<FakeLink> opened = new CopyOnWriteArrayList<>();

		private final Set<NodeAddress> unreachable = ConcurrentHashMap.newKeySet();

		private volatile Map<NodeAddress, int[]> slots = Map.of();

		/**
		 * Every node seen so far: a view names the ones that serve no slot (replicas).
		 */
		private final Set<NodeAddress> known = ConcurrentHashMap.newKeySet();

		private volatile @Nullable Masters lagging;

		void masters(NodeAddress... masters) {
			this.known.addAll(List.of(masters));
			Map<NodeAddress, int[]> slots = new LinkedHashMap<>();
			int share = 16384 / masters.length;
			for (int i = 0; i < masters.length; i++) {
				int from = i * share;
				int to = (i == masters.length - 1) ? 16384 : from + share;
				slots.put(masters[i], IntStream.range(from, to).toArray());
			}
			this.slots = slots;
		}

		void moveSlot(int slot, NodeAddress to) {
			Map<NodeAddress, int[]> slots = new LinkedHashMap<>();
			this.slots
				.forEach((node, owned) -> slots.put(node, IntStream.of(owned).filter((s) -> s != slot).toArray()));
			slots.merge(to, new int[] { slot }, (a, b) -> IntStream.concat(IntStream.of(a), IntStream.of(b)).toArray());
			this.known.add(to);
			this.slots = slots;
		}

		NodeAddress owner(int slot) {
			return Masters.of(this.slots).owner(slot);
		}

		FakeLink current(NodeAddress node) {
			List<FakeLink> links = this.opened.stream()
				.filter((link) -> link.node.equals(node) && !link.closed)
				.toList();
			return links.get(links.size() - 1);
		}

		List<NodeAddress> holding(ChannelKind kind, byte[] name) {
			return this.opened.stream()
				.filter((link) -> !link.closed && link.holds(kind, name))
				.map((link) -> link.node)
				.toList();
		}

		@Override
		public NodeLink open(NodeAddress node, NodeLink.Events events) {
			if (this.unreachable.contains(node)) {
				throw new IllegalStateException("unreachable " + node);
			}
			FakeLink link = new FakeLink(node, events);
			this.opened.add(link);
			return link;
		}

		@Override
		public Masters masters(boolean fresh) {
			Masters lagging = this.lagging;
			return (lagging != null) ? lagging : current();
		}

		Masters current() {
			return Masters.of(this.slots, this.known);
		}

		/** Makes views come from a node that has not seen the changes since. */
		void lagFrom(Masters view) {
			this.lagging = view;
		}

		@Override
		public void close() {
		}

	}

	private static final class FakeLink implements NodeLink {

		private final NodeAddress node;

		private final NodeLink.Events events;

		private final Map<ChannelKind, List<String>> held = new EnumMap<>(ChannelKind.class);

		private volatile boolean closed;

		private volatile boolean lost;

		FakeLink(NodeAddress node, NodeLink.Events events) {
			this.node = node;
			this.events = events;
			for (ChannelKind kind : ChannelKind.values()) {
				this.held.put(kind, new CopyOnWriteArrayList<>());
			}
		}

		boolean holds(ChannelKind kind, byte[] name) {
			return this.held.get(kind).contains(new String(name, StandardCharsets.UTF_8));
		}

		void deliver(ChannelKind kind, byte[] channel, byte[] body, byte @Nullable [] pattern) {
			this.events.message(this, kind, channel, body, pattern);
		}

		void lose() {
			this.lost = true;
			this.events.lost(this, null);
		}

		void unsubscribedByServer(byte[] channel) {
			this.held.get(ChannelKind.SHARD).remove(new String(channel, StandardCharsets.UTF_8));
			this.events.unsubscribedByServer(this, channel);
		}

		@Override
		public NodeAddress node() {
			return this.node;
		}

		@Override
		public CompletableFuture<Void> subscribe(ChannelKind kind, List<byte[]> names) {
			names.forEach((name) -> this.held.get(kind).add(new String(name, StandardCharsets.UTF_8)));
			return CompletableFuture.completedFuture(null);
		}

		@Override
		public void unsubscribe(ChannelKind kind, List<byte[]> names) {
			names.forEach((name) -> this.held.get(kind).remove(new String(name, StandardCharsets.UTF_8)));
		}

		@Override
		public boolean isOpen() {
			return !this.closed && !this.lost;
		}

		@Override
		public void close() {
			this.closed = true;
		}

	}

	private static final class Received implements MessageListener, SubscriptionListener {

		private final List<String> bodies = new CopyOnWriteArrayList<>();

		private final List<String> patternsSubscribed = new ArrayList<>();

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			this.bodies.add(new String(message.getBody(), StandardCharsets.UTF_8));
		}

		@Override
		public void onPatternSubscribed(byte[] pattern, long count) {
			this.patternsSubscribed.add(new String(pattern, StandardCharsets.UTF_8));
		}

	}

	private static final class CountingObserver implements PubSubObserver {

		private final AtomicInteger resubscribed = new AtomicInteger();

		@Override
		public void resubscribed(boolean sharded, int count) {
			this.resubscribed.addAndGet(count);
		}

	}

}
