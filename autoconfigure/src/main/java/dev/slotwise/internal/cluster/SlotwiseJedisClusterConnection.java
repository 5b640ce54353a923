package dev.slotwise.internal.cluster;

import java.util.List;

import org.jspecify.annotations.Nullable;
import redis.clients.jedis.RedisClusterClient;

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
 * A {@link JedisClusterConnection} composed of the features the application left on
 * ({@link JedisClusterFeature}): their layers in front of the string and key commands
 * (cross-slot multi-key commands on the engine, cluster-wide {@code scan} and
 * {@code keys}), the pipeline (Spring Data Redis refuses to pipeline on a cluster: while
 * one is open, every key-based command group queues its calls in it) and the
 * subscriptions across the cluster. Every other command is Spring Data Redis's.
 */
final class SlotwiseJedisClusterConnection extends JedisClusterConnection {

	private final ConnectionParts parts;

	SlotwiseJedisClusterConnection(RedisClusterClient client, ClusterCommandExecutor executor,
			ClusterTopologyProvider topologyProvider, List<ConnectionParts.Started<ConnectionView>> features) {
		super(client, executor, topologyProvider);
		this.parts = ConnectionParts.connect(features, new ConnectionView() {

			@Override
			public boolean isPipelinedOrQueueing() {
				return isPipelined() || isQueueing();
			}

			@Override
			public RedisStringCommands directStrings() {
				return composedStrings();
			}

			@Override
			public RedisKeyCommands directKeys() {
				return composedKeys();
			}

		});
	}

	private RedisStringCommands composedStrings() {
		return this.parts.strings(super::stringCommands);
	}

	private RedisKeyCommands composedKeys() {
		return this.parts.keys(super::keyCommands);
	}

	@Override
	public RedisStringCommands stringCommands() {
		return this.parts.stringCommands(super::stringCommands);
	}

	@Override
	public RedisKeyCommands keyCommands() {
		return this.parts.keyCommands(super::keyCommands);
	}

	@Override
	public RedisHashCommands hashCommands() {
		return this.parts.commands(RedisHashCommands.class, super::hashCommands);
	}

	@Override
	public RedisListCommands listCommands() {
		return this.parts.commands(RedisListCommands.class, super::listCommands);
	}

	@Override
	public RedisSetCommands setCommands() {
		return this.parts.commands(RedisSetCommands.class, super::setCommands);
	}

	@Override
	public RedisZSetCommands zSetCommands() {
		return this.parts.commands(RedisZSetCommands.class, super::zSetCommands);
	}

	@Override
	public RedisHyperLogLogCommands hyperLogLogCommands() {
		return this.parts.commands(RedisHyperLogLogCommands.class, super::hyperLogLogCommands);
	}

	@Override
	public RedisGeoCommands geoCommands() {
		return this.parts.commands(RedisGeoCommands.class, super::geoCommands);
	}

	@Override
	public RedisStreamCommands streamCommands() {
		return this.parts.commands(RedisStreamCommands.class, super::streamCommands);
	}

	/**
	 * While pipelined, refuses every call: server commands have no key to route by.
	 */
	@Override
	public RedisClusterServerCommands serverCommands() {
		return this.parts.commands(RedisClusterServerCommands.class, super::serverCommands);
	}

	/**
	 * While pipelined, refuses every call: scripts are not pipelined on a cluster (yet).
	 * With the transactions feature on, a script whose keys span slots is refused before
	 * it is sent.
	 */
	@Override
	public RedisScriptingCommands scriptingCommands() {
		return this.parts.scriptingCommands(super::scriptingCommands);
	}

	/**
	 * Refused while pipelined: the raw command would run at once, outside the pipeline's
	 * results.
	 */
	@Override
	public Object execute(String command, byte[]... args) {
		return this.parts.execute(command, args, super::execute);
	}

	@Override
	public void multi() {
		this.parts.multi(super::multi);
	}

	@Override
	public boolean isQueueing() {
		return this.parts.isQueueing(super::isQueueing);
	}

	@Override
	public List<Object> exec() {
		return this.parts.exec(super::exec);
	}

	@Override
	public void discard() {
		this.parts.discard(super::discard);
	}

	@Override
	public void watch(byte[]... keys) {
		this.parts.watch(keys, super::watch);
	}

	@Override
	public void unwatch() {
		this.parts.unwatch(super::unwatch);
	}

	@Override
	public void openPipeline() {
		this.parts.openPipeline(super::openPipeline);
	}

	@Override
	public boolean isPipelined() {
		return this.parts.isPipelined(super::isPipelined);
	}

	@Override
	public List<Object> closePipeline() {
		return this.parts.closePipeline(super::closePipeline);
	}

	/**
	 * Subscribes across the cluster when the pub/sub feature is on: keyspace and keyevent
	 * channels and patterns on every master (each notifies of its own keys only),
	 * following failovers and new masters; other channels on one master.
	 */
	@Override
	public void subscribe(MessageListener listener, byte[]... channels) {
		this.parts.subscribe(listener, channels, isPipelined() || isQueueing(), super::subscribe);
	}

	/**
	 * Subscribes patterns across the cluster, as {@link #subscribe(MessageListener,
	 * byte[]...)} does channels.
	 */
	@Override
	public void pSubscribe(MessageListener listener, byte[]... patterns) {
		this.parts.pSubscribe(listener, patterns, isPipelined() || isQueueing(), super::pSubscribe);
	}

	@Override
	public @Nullable Subscription getSubscription() {
		return this.parts.getSubscription(super::getSubscription);
	}

	@Override
	public boolean isSubscribed() {
		return this.parts.isSubscribed(super::isSubscribed);
	}

	@Override
	public void close() {
		this.parts.close();
		super.close();
	}

}
