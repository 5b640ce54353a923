package dev.slotwise.internal.metrics;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import dev.slotwise.internal.pubsub.PubSubObserver;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Micrometer meters for pub/sub across the cluster, one {@link PubSubObserver} per
 * client:
 * <ul>
 * <li>{@value #SUBSCRIPTIONS} (gauge): channels and patterns subscribed on a node; tags
 * {@code client}, {@code node} ({@code host:port}) and {@code kind} ({@code classic} for
 * channels and patterns, {@code sharded});</li>
 * <li>{@value #RESUBSCRIPTIONS} (counter): names subscribed again after a failover, a new
 * master, a lost connection or a slot migration; tags {@code client} and
 * {@code kind};</li>
 * <li>{@value #RECEIVED} (counter): messages handed to listeners; tags {@code client},
 * {@code node} and {@code kind}.</li>
 * </ul>
 * A {@link MeterBinder}: counts made before Spring Boot binds the registry are kept and
 * show once it does.
 */
public final class PubSubMeters extends CountingMeterBinder<PubSubMeters.ClientObserver>
		implements PubSubObserver.Source {

	/** Name of the subscriptions gauge. */
	public static final String SUBSCRIPTIONS = "slotwise.pubsub.subscriptions";

	/** Name of the resubscriptions counter. */
	public static final String RESUBSCRIPTIONS = "slotwise.pubsub.resubscriptions";

	/** Name of the received messages counter. */
	public static final String RECEIVED = "slotwise.pubsub.messages.received";

	@Override
	protected ClientObserver newObserver(String client) {
		return new ClientObserver(client, registries());
	}

	private static String kind(boolean sharded) {
		return sharded ? "sharded" : "classic";
	}

	static final class ClientObserver implements PubSubObserver, Counting {

		private final String client;

		private final List<MeterRegistry> registries;

		private final Map<String, NodeState> nodes = new ConcurrentHashMap<>();

		private final LongAdder classicResubscribed = new LongAdder();

		private final LongAdder shardedResubscribed = new LongAdder();

		ClientObserver(String client, List<MeterRegistry> registries) {
			this.client = client;
			this.registries = registries;
		}

		@Override
		public synchronized void register(MeterRegistry registry) {
			resubscriptions(registry, false, this.classicResubscribed);
			resubscriptions(registry, true, this.shardedResubscribed);
			this.nodes.forEach((key, state) -> state.register(registry, this.client));
		}

		private void resubscriptions(MeterRegistry registry, boolean sharded, LongAdder count) {
			FunctionCounter.builder(RESUBSCRIPTIONS, count, LongAdder::sum)
				.description("Channels and patterns subscribed again after a topology change, a lost connection or a "
						+ "slot migration")
				.tag("client", this.client)
				.tag("kind", kind(sharded))
				.register(registry);
		}

		private NodeState node(String node, boolean sharded) {
			String key = kind(sharded) + "/" + node;
			NodeState state = this.nodes.get(key);
			if (state == null) {
				synchronized (this) {
					state = this.nodes.get(key);
					if (state == null) {
						state = new NodeState(node, sharded);
						for (MeterRegistry registry : this.registries) {
							state.register(registry, this.client);
						}
						this.nodes.put(key, state);
					}
				}
			}
			return state;
		}

		@Override
		public void subscriptions(String node, boolean sharded, int delta) {
			node(node, sharded).subscriptions.addAndGet(delta);
		}

		@Override
		public void resubscribed(boolean sharded, int count) {
			(sharded ? this.shardedResubscribed : this.classicResubscribed).add(count);
		}

		@Override
		public void received(String node, boolean sharded) {
			node(node, sharded).received.increment();
		}

	}

	private static final class NodeState {

		private final String node;

		private final boolean sharded;

		private final AtomicInteger subscriptions = new AtomicInteger();

		private final LongAdder received = new LongAdder();

		NodeState(String node, boolean sharded) {
			this.node = node;
			this.sharded = sharded;
		}

		void register(MeterRegistry registry, String client) {
			Tags tags = Tags.of("client", client, "node", this.node, "kind", kind(this.sharded));
			Gauge.builder(SUBSCRIPTIONS, this.subscriptions, AtomicInteger::get)
				.description("Channels and patterns subscribed on a node")
				.tags(tags)
				.register(registry);
			FunctionCounter.builder(RECEIVED, this.received, LongAdder::sum)
				.description("Pub/sub messages handed to listeners")
				.tags(tags)
				.register(registry);
		}

	}

}
