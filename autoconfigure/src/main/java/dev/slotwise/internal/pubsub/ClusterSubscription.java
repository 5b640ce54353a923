package dev.slotwise.internal.pubsub;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.SlotHash;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.DefaultMessage;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisInvalidSubscriptionException;
import org.springframework.data.redis.connection.Subscription;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.connection.util.ByteArrayWrapper;

/**
 * A {@link Subscription} over a whole cluster: it holds the channels and patterns the
 * application asked for and keeps them subscribed where they must be, one
 * {@link NodeLink} per node:
 * <ul>
 * <li>keyspace and keyevent channels and patterns ({@link KeyspaceChannels}) on every
 * master, since each master notifies of its own keys only;</li>
 * <li>ordinary channels and patterns on one master (the "home"), since a cluster
 * {@code PUBLISH} reaches every node;</li>
 * <li>sharded channels (a sharded subscription holds nothing else) on the master owning
 * each channel's slot.</li>
 * </ul>
 * It reconciles what is subscribed with what should be when the application changes its
 * subscriptions, when a link fails, when a node unsubscribes a sharded channel whose slot
 * moved, and every check interval (a failover, a new master, a node restarted as a
 * replica show up there). A message is handed to the listener only when it comes from a
 * link that should carry it at that moment, so a demoted master's leftovers are not
 * delivered twice.
 */
final class ClusterSubscription implements Subscription {

	private static final Log logger = LogFactory.getLog(ClusterSubscription.class);

	/** How soon a lost link or a server-side unsubscription is looked at again. */
	private static final long SOON_MILLIS = 100;

	private final MessageListener listener;

	private final @Nullable SubscriptionListener subscriptionListener;

	private final boolean sharded;

	private final NodeLinks links;

	private final PubSubRuntime runtime;

	private final PubSubObserver observer;

	private final ReentrantLock lock = new ReentrantLock();

	private final Set<ByteArrayWrapper> channels = new LinkedHashSet<>();

	private final Set<ByteArrayWrapper> patterns = new LinkedHashSet<>();

	/**
	 * The links and what each holds, confirmed by its node. Changed under the lock, read
	 * by readers.
	 */
	private final Map<NodeAddress, SubscribedNode> nodes = new ConcurrentHashMap<>();

	/** Where each channel and pattern should be subscribed. */
	private final SubscriptionPlacement placement;

	private final AtomicBoolean soon = new AtomicBoolean();

	/**
	 * Sharded channels nodes unsubscribed on their own, from the readers, applied by the
	 * next reconciliation.
	 */
	private final Queue<ServerUnsubscribed> serverUnsubscribed = new ConcurrentLinkedQueue<>();

	private final CountDownLatch ended = new CountDownLatch(1);

	private final NodeLink.Events events = new Events();

	private volatile boolean alive = true;

	private PubSubRuntime.@Nullable Registration registration;

	ClusterSubscription(MessageListener listener, boolean sharded, NodeLinks links, PubSubRuntime runtime,
			PubSubObserver observer) {
		this.listener = listener;
		this.subscriptionListener = (listener instanceof SubscriptionListener subscriptions) ? subscriptions : null;
		this.sharded = sharded;
		this.links = links;
		this.runtime = runtime;
		this.observer = observer;
		this.placement = new SubscriptionPlacement(sharded, this.channels, this.patterns, this.nodes);
	}

	/**
	 * Starts the periodic topology check. Called once, right after construction.
	 */
	void start() {
		this.registration = this.runtime.register(this, () -> reconcileQuietly(true));
	}

	@Override
	public void subscribe(byte[]... channels) throws RedisInvalidSubscriptionException {
		change(ChannelKind.CHANNEL, channels, true);
	}

	@Override
	public void pSubscribe(byte[]... patterns) throws RedisInvalidSubscriptionException {
		if (this.sharded) {
			throw new RedisInvalidSubscriptionException("Sharded channels have no patterns: SSUBSCRIBE takes channels");
		}
		change(ChannelKind.PATTERN, patterns, true);
	}

	@Override
	public void unsubscribe() {
		unsubscribe(getChannels().toArray(byte[][]::new));
	}

	@Override
	public void unsubscribe(byte[]... channels) {
		change(ChannelKind.CHANNEL, channels, false);
	}

	@Override
	public void pUnsubscribe() {
		pUnsubscribe(getPatterns().toArray(byte[][]::new));
	}

	@Override
	public void pUnsubscribe(byte[]... patterns) {
		change(ChannelKind.PATTERN, patterns, false);
	}

	@Override
	public Collection<byte[]> getChannels() {
		return copyOf(this.channels);
	}

	@Override
	public Collection<byte[]> getPatterns() {
		return copyOf(this.patterns);
	}

	/**
	 * Returns the names of one set as they are now, taken under the lock that guards the
	 * set.
	 */
	private Collection<byte[]> copyOf(Set<ByteArrayWrapper> names) {
		this.lock.lock();
		try {
			return names.stream().map(ByteArrayWrapper::getArray).toList();
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public MessageListener getListener() {
		return this.listener;
	}

	@Override
	public boolean isAlive() {
		return this.alive;
	}

	@Override
	public void close() {
		if (!this.alive) {
			return;
		}
		this.alive = false;
		PubSubRuntime.Registration registration = this.registration;
		if (registration != null) {
			registration.cancel();
		}
		this.lock.lock();
		try {
			for (NodeAddress node : List.copyOf(this.nodes.keySet())) {
				drop(node);
			}
			this.links.close();
		}
		finally {
			this.lock.unlock();
			this.ended.countDown();
		}
	}

	/**
	 * Compares the nodes with the cluster's masters now, as the periodic check does.
	 */
	void check() {
		reconcileQuietly(true);
	}

	/**
	 * Blocks until the subscription is closed, as Jedis's {@code subscribe} does (Spring
	 * Data Redis's container runs blocking subscriptions on its subscription executor and
	 * treats the return as the end of listening).
	 * @throws InterruptedException when interrupted first
	 */
	void awaitClosed() throws InterruptedException {
		this.ended.await();
	}

	/**
	 * Returns how many names each node holds, for health details.
	 * @return the count per node, {@code host:port}
	 */
	Map<String, Integer> subscriptionsPerNode() {
		Map<String, Integer> counts = new LinkedHashMap<>();
		this.nodes.forEach((address, node) -> counts.put(address.toString(), node.size()));
		return counts;
	}

	private void change(ChannelKind requested, byte[][] names, boolean add) {
		if (names.length == 0) {
			return;
		}
		ChannelKind kind = (this.sharded && requested == ChannelKind.CHANNEL) ? ChannelKind.SHARD : requested;
		List<byte[]> changed = new ArrayList<>();
		this.lock.lock();
		try {
			if (!this.alive) {
				if (add) {
					throw new RedisInvalidSubscriptionException("The subscription is closed");
				}
				return;
			}
			Set<ByteArrayWrapper> target = (kind == ChannelKind.PATTERN) ? this.patterns : this.channels;
			for (byte[] name : names) {
				if (add ? target.add(new ByteArrayWrapper(name)) : target.remove(new ByteArrayWrapper(name))) {
					changed.add(name);
				}
			}
			if (!add && this.channels.isEmpty() && this.patterns.isEmpty()) {
				// As Spring Data Redis's subscriptions do: nothing left to listen to ends
				// the subscription.
				close();
			}
			else if (!changed.isEmpty()) {
				reconcile(true, add && this.nodes.isEmpty());
			}
		}
		finally {
			this.lock.unlock();
		}
		notifyListener(kind, changed, add);
	}

	private void notifyListener(ChannelKind kind, List<byte[]> names, boolean subscribed) {
		SubscriptionListener subscriptions = this.subscriptionListener;
		if (subscriptions == null) {
			return;
		}
		long count = this.channels.size() + this.patterns.size();
		for (byte[] name : names) {
			if (kind == ChannelKind.PATTERN) {
				if (subscribed) {
					subscriptions.onPatternSubscribed(name, count);
				}
				else {
					subscriptions.onPatternUnsubscribed(name, count);
				}
			}
			else if (subscribed) {
				subscriptions.onChannelSubscribed(name, count);
			}
			else {
				subscriptions.onChannelUnsubscribed(name, count);
			}
		}
	}

	private void reconcileQuietly(boolean fresh) {
		this.lock.lock();
		try {
			if (this.alive) {
				reconcile(fresh, false);
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Cluster subscription check failed; retried at the next check", ex);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Makes the links hold what they should. Called under the lock.
	 * @param fresh whether to read the topology from the cluster rather than from a cache
	 * @param mustSucceed whether to throw when no node could be subscribed (the
	 * application's first subscription)
	 */
	private void reconcile(boolean fresh, boolean mustSucceed) {
		boolean byApplication = mustSucceed;
		applyServerUnsubscriptions();
		Masters masters;
		try {
			masters = this.links.masters(fresh);
		}
		catch (RuntimeException ex) {
			if (mustSucceed) {
				throw new RedisConnectionFailureException("Cannot read the cluster topology to subscribe", ex);
			}
			retrySoon();
			return;
		}
		if (masters.isEmpty()) {
			if (mustSucceed) {
				throw new RedisConnectionFailureException("No master serves slots: nothing to subscribe on");
			}
			retrySoon();
			return;
		}
		Map<NodeAddress, Map<ChannelKind, Set<ByteArrayWrapper>>> wanted = this.placement.wanted(masters);
		boolean deferred = this.sharded && this.placement.hasMovedAway()
				&& this.channels.stream().anyMatch((channel) -> !SubscriptionPlacement.placed(wanted, channel));
		// Links that failed, and links to nodes the view knows to serve no slot (a
		// demoted master), go first. A node the view does not mention is kept: the view
		// may come from a node that has not heard of it yet.
		for (NodeAddress address : List.copyOf(this.nodes.keySet())) {
			SubscribedNode node = this.nodes.get(address);
			if (node == null) {
				continue;
			}
			if (!node.link.isOpen() || (!wanted.containsKey(address) && masters.others().contains(address))) {
				drop(address);
			}
			else if (!wanted.containsKey(address)) {
				releaseUnwanted(address, node);
			}
		}
		List<Pending> pending = new ArrayList<>();
		boolean failed = false;
		for (Map.Entry<NodeAddress, Map<ChannelKind, Set<ByteArrayWrapper>>> entry : wanted.entrySet()) {
			SubscribedNode node = this.nodes.get(entry.getKey());
			if (node == null) {
				try {
					node = new SubscribedNode(this.links.open(entry.getKey(), this.events));
				}
				catch (RuntimeException ex) {
					failed = true;
					logger.debug("Cannot open a pub/sub connection to " + entry.getKey() + ": " + ex);
					continue;
				}
				this.nodes.put(entry.getKey(), node);
			}
			for (ChannelKind kind : ChannelKind.values()) {
				Set<ByteArrayWrapper> want = entry.getValue().getOrDefault(kind, Set.of());
				Set<ByteArrayWrapper> held = node.held(kind);
				List<byte[]> extra = new ArrayList<>();
				for (Iterator<ByteArrayWrapper> it = held.iterator(); it.hasNext();) {
					ByteArrayWrapper name = it.next();
					if (!want.contains(name)) {
						extra.add(name.getArray());
						it.remove();
					}
				}
				if (!extra.isEmpty()) {
					node.report(this.observer, entry.getKey(), this.sharded, -extra.size());
					for (List<byte[]> group : SubscriptionPlacement.commands(kind, extra)) {
						node.link.unsubscribe(kind, group);
					}
				}
				List<byte[]> missing = want.stream()
					.filter((name) -> !held.contains(name))
					.map(ByteArrayWrapper::getArray)
					.toList();
				try {
					for (List<byte[]> group : SubscriptionPlacement.commands(kind, missing)) {
						List<ByteArrayWrapper> names = group.stream().map(ByteArrayWrapper::new).toList();
						// Held before the node confirms: its messages may arrive before
						// the reply is seen here, and must not be dropped. A failure
						// drops the whole link.
						held.addAll(names);
						pending.add(new Pending(entry.getKey(), node, kind, names, node.link.subscribe(kind, group)));
					}
				}
				catch (RuntimeException ex) {
					failed = true;
					logger.debug("Cannot subscribe on " + entry.getKey() + ": " + ex);
					drop(entry.getKey());
					break;
				}
			}
		}
		long deadline = System.nanoTime() + this.runtime.timeout().toNanos();
		int subscribed = 0;
		for (Pending next : pending) {
			if (this.nodes.get(next.address) != next.node) {
				continue;
			}
			try {
				next.future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
				next.node.report(this.observer, next.address, this.sharded, next.names.size());
				subscribed += next.names.size();
			}
			catch (ExecutionException | TimeoutException ex) {
				failed = true;
				logger.debug("Subscribing on " + next.address + " failed: " + ex);
				drop(next.address);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new RedisConnectionFailureException("Interrupted while subscribing", ex);
			}
		}
		if (deferred) {
			retrySoon();
		}
		if (!byApplication && subscribed > 0) {
			this.observer.resubscribed(this.sharded, subscribed);
		}
		if (failed) {
			if (mustSucceed && subscribed == 0) {
				throw new RedisConnectionFailureException("Could not subscribe on any of the masters "
						+ masters.addresses() + " within " + this.runtime.timeout().toMillis() + " ms");
			}
			retrySoon();
		}
	}

	private void applyServerUnsubscriptions() {
		ServerUnsubscribed next;
		while ((next = this.serverUnsubscribed.poll()) != null) {
			NodeAddress address = next.link.node();
			this.placement.movedAway(SlotHash.slot(next.channel), address);
			SubscribedNode node = this.nodes.get(address);
			if (node != null && node.link == next.link
					&& node.held(ChannelKind.SHARD).remove(new ByteArrayWrapper(next.channel))) {
				node.report(this.observer, address, true, -1);
			}
		}
	}

	/**
	 * Unsubscribes, on a node kept outside the view, the names the application no longer
	 * wants at all.
	 */
	private void releaseUnwanted(NodeAddress address, SubscribedNode node) {
		for (ChannelKind kind : ChannelKind.values()) {
			Set<ByteArrayWrapper> desired = (kind == ChannelKind.PATTERN) ? this.patterns : this.channels;
			List<byte[]> extra = new ArrayList<>();
			for (Iterator<ByteArrayWrapper> it = node.held(kind).iterator(); it.hasNext();) {
				ByteArrayWrapper name = it.next();
				if (!desired.contains(name)) {
					extra.add(name.getArray());
					it.remove();
				}
			}
			if (!extra.isEmpty()) {
				node.report(this.observer, address, this.sharded, -extra.size());
				for (List<byte[]> group : SubscriptionPlacement.commands(kind, extra)) {
					node.link.unsubscribe(kind, group);
				}
			}
		}
	}

	/** Closes a node's link and forgets it. Called under the lock. */
	private void drop(NodeAddress address) {
		SubscribedNode node = this.nodes.remove(address);
		if (node == null) {
			return;
		}
		node.report(this.observer, address, this.sharded, -node.reported.get());
		try {
			node.link.close();
		}
		catch (RuntimeException ex) {
			logger.debug("Closing the pub/sub connection to " + address + " failed: " + ex);
		}
	}

	private void retrySoon() {
		if (this.alive && this.soon.compareAndSet(false, true)) {
			this.runtime.schedule(() -> {
				this.soon.set(false);
				reconcileQuietly(true);
			}, Duration.ofMillis(SOON_MILLIS));
		}
	}

	private record ServerUnsubscribed(NodeLink link, byte[] channel) {
	}

	private record Pending(NodeAddress address, SubscribedNode node, ChannelKind kind, List<ByteArrayWrapper> names,
			CompletableFuture<Void> future) {
	}

	private final class Events implements NodeLink.Events {

		@Override
		public void message(NodeLink link, ChannelKind kind, byte[] channel, byte[] body, byte @Nullable [] pattern) {
			if (!ClusterSubscription.this.alive) {
				return;
			}
			SubscribedNode node = ClusterSubscription.this.nodes.get(link.node());
			byte[] name = (kind == ChannelKind.PATTERN && pattern != null) ? pattern : channel;
			// Only what this link should carry now: a node that stopped being a master,
			// or a name moved elsewhere, would otherwise deliver a second copy.
			if (node == null || node.link != link || !node.held(kind).contains(new ByteArrayWrapper(name))) {
				return;
			}
			ClusterSubscription.this.observer.received(link.node().toString(), ClusterSubscription.this.sharded);
			ClusterSubscription.this.listener.onMessage(new DefaultMessage(channel, body),
					(kind == ChannelKind.PATTERN) ? pattern : null);
		}

		@Override
		public void unsubscribedByServer(NodeLink link, byte[] channel) {
			// Applied under the lock by the next reconciliation: applied here, it could
			// race one that is about to subscribe the channel there again, which the node
			// would refuse with MOVED.
			ClusterSubscription.this.serverUnsubscribed.add(new ServerUnsubscribed(link, channel));
			retrySoon();
		}

		@Override
		public void lost(NodeLink link, @Nullable Throwable cause) {
			logger.debug("Pub/sub connection to " + link.node() + " lost: " + cause);
			retrySoon();
		}

	}

}
