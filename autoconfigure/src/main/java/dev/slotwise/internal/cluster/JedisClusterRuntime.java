package dev.slotwise.internal.cluster;

import java.util.function.Supplier;

import dev.slotwise.internal.multikey.jedis.JedisNodeTransport;
import dev.slotwise.internal.multikey.jedis.MultiKeyExecutor;
import dev.slotwise.internal.multikey.MultiKeySettings;
import dev.slotwise.multikey.MultiKeyReadFrom;
import redis.clients.jedis.RedisClusterClient;

import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.util.function.SingletonSupplier;

/**
 * What the features of one started Jedis connection factory share: the cluster client,
 * the topology provider, the executor of node batches and the node transport (slot
 * routing, node pools, redirects), each created once, the executor and the transport only
 * when a feature asks for them.
 */
public final class JedisClusterRuntime {

	private final RedisClusterClient client;

	private final ClusterTopologyProvider topologyProvider;

	private final Supplier<MultiKeyExecutor> executor;

	private final MultiKeySettings settings;

	private final MultiKeyReadFrom readFrom;

	private final SingletonSupplier<JedisNodeTransport> transport = SingletonSupplier.of(this::createTransport);

	JedisClusterRuntime(RedisClusterClient client, ClusterTopologyProvider topologyProvider,
			Supplier<MultiKeyExecutor> executor, MultiKeySettings settings, MultiKeyReadFrom readFrom) {
		this.client = client;
		this.topologyProvider = topologyProvider;
		this.executor = executor;
		this.settings = settings;
		this.readFrom = readFrom;
	}

	/**
	 * Returns the started cluster client.
	 * @return the client
	 */
	public RedisClusterClient client() {
		return this.client;
	}

	/**
	 * Returns the factory's topology provider.
	 * @return the topology provider
	 */
	public ClusterTopologyProvider topologyProvider() {
		return this.topologyProvider;
	}

	/**
	 * Returns the executor of node batches, creating it on first call.
	 * @return the executor, owned by the application context
	 */
	public MultiKeyExecutor executor() {
		return this.executor.get();
	}

	/**
	 * Returns the limits of node batches ({@code slotwise.multikey.*}), which pipelines
	 * follow too.
	 * @return the settings
	 */
	public MultiKeySettings settings() {
		return this.settings;
	}

	/**
	 * Returns where reads may go ({@code slotwise.multikey.read-from}).
	 * @return where reads go
	 */
	public MultiKeyReadFrom readFrom() {
		return this.readFrom;
	}

	/**
	 * Returns the node transport, creating it on first call: one per started factory, so
	 * that every feature routes by the same slot snapshot and borrows from the same node
	 * pools.
	 * @return the transport
	 */
	public JedisNodeTransport transport() {
		return this.transport.obtain();
	}

	private JedisNodeTransport createTransport() {
		MultiKeyExecutor executor = executor();
		return new JedisNodeTransport(this.client, this.topologyProvider, executor.executor(), this.readFrom,
				this.settings.timeout(), executor.releaser(), executor.inlineBatchBytes());
	}

}
