package dev.slotwise.internal.multikey;

import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.slotwise.internal.pipeline.ConnectionPipeline;
import dev.slotwise.internal.pipeline.JedisClusterPipelining;
import dev.slotwise.internal.pubsub.ClusterPubSub;
import dev.slotwise.internal.pubsub.ConnectionSubscription;
import dev.slotwise.internal.transaction.ClusterTransaction;
import dev.slotwise.internal.transaction.ScriptSlotCheck;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.connection.ClusterCommandExecutor;
import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisClusterServerCommands;
import org.springframework.data.redis.connection.RedisGeoCommands;
import org.springframework.data.redis.connection.RedisHashCommands;
import org.springframework.data.redis.connection.RedisHyperLogLogCommands;
import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisListCommands;
import org.springframework.data.redis.connection.RedisScriptingCommands;
import org.springframework.data.redis.connection.RedisSetCommands;
import org.springframework.data.redis.connection.RedisStreamCommands;
import org.springframework.data.redis.connection.RedisStringCommands;
import org.springframework.data.redis.connection.RedisZSetCommands;
import org.springframework.data.redis.connection.Subscription;
import org.springframework.data.redis.connection.jedis.JedisClusterConnection;

/**
 * A {@link JedisClusterConnection} whose cross-slot {@code mGet}, {@code mSet}, {@code del}, {@code unlink} and
 * {@code exists} run on the multi-key engine, whose {@code scan(ScanOptions)} and {@code keys(byte[])} walk every
 * master in parallel when the keyspace walks are on, and which pipelines (Spring Data Redis refuses to on a cluster): while
 * a pipeline is open, every key-based command group queues its calls in the {@link ConnectionPipeline}. Every other
 * command is Spring Data Redis's. With transactions on, {@code multi()}, {@code exec()}, {@code discard()},
 * {@code watch()} and {@code unwatch()} run a transaction on the master of its keys' slot
 * ({@code dev.slotwise.internal.transaction}), whose command groups the connection hands out while queueing, and
 * scripts whose keys span slots are refused before they are sent.
 */
final class SlotwiseJedisClusterConnection extends JedisClusterConnection {

	private final MultiKeyCommands multiKey;

	private final @Nullable ConnectionPipeline pipeline;

	/** Subscriptions across the cluster (keyspace events on every master); {@code null} leaves Spring Data's. */
	private final @Nullable ConnectionSubscription subscription;

	/** Transactions on one slot's master; {@code null} leaves Spring Data's refusal. */
	private final @Nullable ClusterTransaction transaction;

	private final @Nullable ScriptSlotCheck scripts;

	SlotwiseJedisClusterConnection(RedisClusterClient client, ClusterCommandExecutor executor,
			ClusterTopologyProvider topologyProvider, MultiKeyEngine engine) {
		this(client, executor, topologyProvider, engine, null);
	}

	SlotwiseJedisClusterConnection(RedisClusterClient client, ClusterCommandExecutor executor,
			ClusterTopologyProvider topologyProvider, MultiKeyEngine engine,
			@Nullable JedisClusterPipelining pipelining) {
		this(client, executor, topologyProvider, engine, pipelining, null);
	}

	SlotwiseJedisClusterConnection(RedisClusterClient client, ClusterCommandExecutor executor,
			ClusterTopologyProvider topologyProvider, MultiKeyEngine engine,
			@Nullable JedisClusterPipelining pipelining, @Nullable ClusterPubSub pubSub) {
		this(client, executor, topologyProvider, engine, pipelining, pubSub, null);
	}

	SlotwiseJedisClusterConnection(RedisClusterClient client, ClusterCommandExecutor executor,
			ClusterTopologyProvider topologyProvider, MultiKeyEngine engine,
			@Nullable JedisClusterPipelining pipelining, @Nullable ClusterPubSub pubSub,
			@Nullable KeyspaceCommands keyspace) {
		this(client, executor, topologyProvider, engine, pipelining, pubSub, keyspace, null);
	}

	/**
	 * @param transactions creates the connection's transaction state from its "is pipelined" test, or {@code null}
	 * to leave transactions to Spring Data Redis (which refuses them on a cluster)
	 */
	SlotwiseJedisClusterConnection(RedisClusterClient client, ClusterCommandExecutor executor,
			ClusterTopologyProvider topologyProvider, MultiKeyEngine engine,
			@Nullable JedisClusterPipelining pipelining, @Nullable ClusterPubSub pubSub,
			@Nullable KeyspaceCommands keyspace,
			@Nullable Function<BooleanSupplier, ClusterTransaction> transactions) {
		super(client, executor, topologyProvider);
		this.transaction = (transactions != null) ? transactions.apply(this::isPipelined) : null;
		this.scripts = (transactions != null) ? new ScriptSlotCheck() : null;
		this.subscription = (pubSub != null) ? new ConnectionSubscription(pubSub, true) : null;
		// scan(ScanOptions)/keys(byte[]) go to the cluster-wide key walks when they are on (slotwise.keyspace).
		this.multiKey = new MultiKeyCommands(() -> engine, () -> isPipelined() || isQueueing(),
				(keyspace != null) ? () -> keyspace : null);
		// The pipeline's cross-slot mGet/mSet/del/unlink/exists run on the connection's own (engine) commands.
		this.pipeline = (pipelining != null) ? pipelining.forConnection(
				(group) -> (group == RedisKeyCommands.class) ? this.multiKey.keys(super::keyCommands)
						: this.multiKey.strings(super::stringCommands))
				: null;
	}

	@Override
	public RedisStringCommands stringCommands() {
		return pipelinedOr(RedisStringCommands.class, () -> this.multiKey.strings(super::stringCommands));
	}

	@Override
	public RedisKeyCommands keyCommands() {
		return pipelinedOr(RedisKeyCommands.class, () -> this.multiKey.keys(super::keyCommands));
	}

	@Override
	public RedisHashCommands hashCommands() {
		return pipelinedOr(RedisHashCommands.class, super::hashCommands);
	}

	@Override
	public RedisListCommands listCommands() {
		return pipelinedOr(RedisListCommands.class, super::listCommands);
	}

	@Override
	public RedisSetCommands setCommands() {
		return pipelinedOr(RedisSetCommands.class, super::setCommands);
	}

	@Override
	public RedisZSetCommands zSetCommands() {
		return pipelinedOr(RedisZSetCommands.class, super::zSetCommands);
	}

	@Override
	public RedisHyperLogLogCommands hyperLogLogCommands() {
		return pipelinedOr(RedisHyperLogLogCommands.class, super::hyperLogLogCommands);
	}

	@Override
	public RedisGeoCommands geoCommands() {
		return pipelinedOr(RedisGeoCommands.class, super::geoCommands);
	}

	@Override
	public RedisStreamCommands streamCommands() {
		return pipelinedOr(RedisStreamCommands.class, super::streamCommands);
	}

	/**
	 * While pipelined, refuses every call: server commands have no key to route by.
	 */
	@Override
	public RedisClusterServerCommands serverCommands() {
		return pipelinedOr(RedisClusterServerCommands.class, super::serverCommands);
	}

	/**
	 * While pipelined, refuses every call: scripts are not pipelined on a cluster (yet). With transactions on, a
	 * script whose keys span slots is refused before it is sent.
	 */
	@Override
	public RedisScriptingCommands scriptingCommands() {
		ScriptSlotCheck scripts = this.scripts;
		return pipelinedOr(RedisScriptingCommands.class,
				(scripts != null) ? () -> scripts.wrap(super.scriptingCommands()) : super::scriptingCommands);
	}

	/**
	 * Refused while pipelined: the raw command would run at once, outside the pipeline's results.
	 */
	@Override
	public Object execute(String command, byte[]... args) {
		if (this.transaction != null && this.transaction.isQueueing()) {
			throw new InvalidDataAccessApiUsageException("execute(\"" + command
					+ "\", …) cannot be part of a transaction on a Redis Cluster: use the command groups");
		}
		if (isPipelined()) {
			throw new InvalidDataAccessApiUsageException(
					"execute(\"" + command + "\", …) cannot be pipelined on a Redis Cluster: use the command groups");
		}
		return super.execute(command, args);
	}

	private <T> T pipelinedOr(Class<T> group, Supplier<T> direct) {
		ConnectionPipeline current = this.pipeline;
		if (current != null && current.isOpen()) {
			return current.commands(group);
		}
		ClusterTransaction transaction = this.transaction;
		return (transaction != null && transaction.isQueueing()) ? transaction.commands(group) : direct.get();
	}

	@Override
	public void multi() {
		if (this.transaction == null) {
			super.multi();
			return;
		}
		this.transaction.multi();
	}

	@Override
	public boolean isQueueing() {
		return (this.transaction != null) ? this.transaction.isQueueing() : super.isQueueing();
	}

	@Override
	public List<Object> exec() {
		return (this.transaction != null) ? this.transaction.exec() : super.exec();
	}

	@Override
	public void discard() {
		if (this.transaction == null) {
			super.discard();
			return;
		}
		this.transaction.discard();
	}

	@Override
	public void watch(byte[]... keys) {
		if (this.transaction == null) {
			super.watch(keys);
			return;
		}
		this.transaction.watch(keys);
	}

	@Override
	public void unwatch() {
		if (this.transaction == null) {
			super.unwatch();
			return;
		}
		this.transaction.unwatch();
	}

	@Override
	public void openPipeline() {
		if (this.pipeline == null) {
			super.openPipeline();
			return;
		}
		this.pipeline.open();
	}

	@Override
	public boolean isPipelined() {
		return this.pipeline != null && this.pipeline.isOpen();
	}

	@Override
	public List<Object> closePipeline() {
		if (this.pipeline == null) {
			return super.closePipeline();
		}
		return this.pipeline.close();
	}

	/**
	 * Subscribes across the cluster: keyspace and keyevent channels and patterns on every master (each notifies of
	 * its own keys only), following failovers and new masters; other channels on one master. Blocks until the
	 * subscription ends, as Jedis's {@code subscribe} does.
	 */
	@Override
	public void subscribe(MessageListener listener, byte[]... channels) {
		ConnectionSubscription subscription = this.subscription;
		if (subscription == null) {
			super.subscribe(listener, channels);
			return;
		}
		subscription.subscribe(listener, channels, new byte[0][], isPipelined() || isQueueing());
	}

	/**
	 * Subscribes patterns across the cluster, as {@link #subscribe(MessageListener, byte[]...)} does channels.
	 */
	@Override
	public void pSubscribe(MessageListener listener, byte[]... patterns) {
		ConnectionSubscription subscription = this.subscription;
		if (subscription == null) {
			super.pSubscribe(listener, patterns);
			return;
		}
		subscription.subscribe(listener, new byte[0][], patterns, isPipelined() || isQueueing());
	}

	@Override
	public @Nullable Subscription getSubscription() {
		ConnectionSubscription subscription = this.subscription;
		return (subscription != null) ? subscription.get() : super.getSubscription();
	}

	@Override
	public boolean isSubscribed() {
		ConnectionSubscription subscription = this.subscription;
		return (subscription != null) ? subscription.isSubscribed() : super.isSubscribed();
	}

	@Override
	public void close() {
		if (this.transaction != null) {
			this.transaction.close();
		}
		ConnectionSubscription subscription = this.subscription;
		if (subscription != null) {
			subscription.close();
		}
		super.close();
	}

}
