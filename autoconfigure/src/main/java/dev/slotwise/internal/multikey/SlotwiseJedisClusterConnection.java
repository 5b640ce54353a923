package dev.slotwise.internal.multikey;

import java.util.List;
import java.util.function.Supplier;

import dev.slotwise.internal.pipeline.ConnectionPipeline;
import dev.slotwise.internal.pipeline.JedisClusterPipelining;
import dev.slotwise.internal.pubsub.ClusterPubSub;
import dev.slotwise.internal.pubsub.ConnectionSubscription;
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
 * command is Spring Data Redis's.
 */
final class SlotwiseJedisClusterConnection extends JedisClusterConnection {

	private final MultiKeyCommands multiKey;

	private final @Nullable ConnectionPipeline pipeline;

	/** Subscriptions across the cluster (keyspace events on every master); {@code null} leaves Spring Data's. */
	private final @Nullable ConnectionSubscription subscription;

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
		super(client, executor, topologyProvider);
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
	 * While pipelined, refuses every call: scripts are not pipelined on a cluster (yet).
	 */
	@Override
	public RedisScriptingCommands scriptingCommands() {
		return pipelinedOr(RedisScriptingCommands.class, super::scriptingCommands);
	}

	/**
	 * Refused while pipelined: the raw command would run at once, outside the pipeline's results.
	 */
	@Override
	public Object execute(String command, byte[]... args) {
		if (isPipelined()) {
			throw new InvalidDataAccessApiUsageException(
					"execute(\"" + command + "\", …) cannot be pipelined on a Redis Cluster: use the command groups");
		}
		return super.execute(command, args);
	}

	private <T> T pipelinedOr(Class<T> group, Supplier<T> direct) {
		ConnectionPipeline current = this.pipeline;
		return (current != null && current.isOpen()) ? current.commands(group) : direct.get();
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
		ConnectionSubscription subscription = this.subscription;
		if (subscription != null) {
			subscription.close();
		}
		super.close();
	}

}
