package dev.slotwise.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.slotwise.multikey.MultiKeyReadFrom;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration properties for Slotwise, bound from {@code slotwise.*}. Each default is
 * the field's initial value here, and nowhere else.
 * <p>
 * Only what Spring Boot lacks lives here: pool settings Spring Boot already has
 * ({@code max-active}, {@code max-idle}, {@code min-idle}, {@code max-wait},
 * {@code time-between-eviction-runs}) are set under
 * {@code spring.data.redis.jedis.pool.*} or {@code spring.data.redis.lettuce.pool.*},
 * where Slotwise supplies its defaults for those left unset.
 * <p>
 * The properties validate themselves: Spring Boot's binder applies a {@link Validator}
 * that is the bound object itself (no JSR-303 provider needed), so every invalid value
 * fails start-up with a {@code BindValidationException} naming the property.
 */
@ConfigurationProperties(prefix = "slotwise")
public class SlotwiseProperties implements Validator {

	static final String PREFIX = "slotwise";

	/**
	 * Whether Slotwise is enabled; when false every Slotwise bean backs off and Spring
	 * Boot's Redis setup runs as if Slotwise were absent.
	 */
	private boolean enabled = true;

	private final Pool pool = new Pool();

	private final Topology topology = new Topology();

	private final MultiKey multikey = new MultiKey();

	private final Metrics metrics = new Metrics();

	private final Observations observations = new Observations();

	private final PubSub pubsub = new PubSub();

	private final Keyspace keyspace = new Keyspace();

	private final Transactions transactions = new Transactions();

	private final Pipeline pipeline = new Pipeline();

	private final NearCache nearCache = new NearCache();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Pool getPool() {
		return this.pool;
	}

	public Topology getTopology() {
		return this.topology;
	}

	public MultiKey getMultikey() {
		return this.multikey;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public Observations getObservations() {
		return this.observations;
	}

	public PubSub getPubsub() {
		return this.pubsub;
	}

	public Pipeline getPipeline() {
		return this.pipeline;
	}

	public Keyspace getKeyspace() {
		return this.keyspace;
	}

	public NearCache getNearCache() {
		return this.nearCache;
	}

	public Transactions getTransactions() {
		return this.transactions;
	}

	@Override
	public boolean supports(Class<?> type) {
		return SlotwiseProperties.class == type;
	}

	@Override
	public void validate(Object target, Errors errors) {
		SlotwiseProperties properties = (SlotwiseProperties) target;
		PropertyChecks checks = new PropertyChecks(errors, PREFIX);
		Pool pool = properties.getPool();
		checks.notNegative("pool.soft-min-evictable-idle-time", pool.getSoftMinEvictableIdleTime());
		Topology topology = properties.getTopology();
		checks.notNegative("topology.cache-ttl", topology.getCacheTtl());
		checks.notNegative("topology.min-refresh-interval", topology.getMinRefreshInterval());
		checks.positive("topology.initial-timeout", topology.getInitialTimeout());
		checks.atLeast("topology.refresh-sources", topology.getRefreshSources(), 1);
		checks.notNegative("topology.periodic-refresh", topology.getPeriodicRefresh());
		MultiKey multiKey = properties.getMultikey();
		checks.atLeast("multikey.max-keys-per-command", multiKey.getMaxKeysPerCommand(), 1);
		checks.atLeast("multikey.max-commands-per-pipeline", multiKey.getMaxCommandsPerPipeline(), 1);
		checks.positive("multikey.timeout", multiKey.getTimeout());
		checks.atLeast("multikey.max-redirects", multiKey.getMaxRedirects(), 0);
		if (multiKey.getReadFrom() == null) {
			checks.reject("multikey.read-from", "must be master, replica or replica-preferred");
		}
		JedisExecutor executor = multiKey.getJedisExecutor();
		checks.atLeast("multikey.jedis-executor.threads", executor.getThreads(), 1);
		checks.atLeast("multikey.jedis-executor.queue-capacity", executor.getQueueCapacity(), 1);
		checks.notEmpty("multikey.jedis-executor.thread-name-prefix", executor.getThreadNamePrefix());
		checks.notNegative("multikey.jedis-executor.await-termination", executor.getAwaitTermination());
		if (executor.getInlineBatchSize() == null || executor.getInlineBatchSize().isNegative()) {
			checks.reject("multikey.jedis-executor.inline-batch-size", "must be 0B or more");
		}
		PubSub pubSub = properties.getPubsub();
		checks.positive("pubsub.check-interval", pubSub.getCheckInterval());
		checks.positive("pubsub.timeout", pubSub.getTimeout());
		checks.notEmpty("pubsub.thread-name-prefix", pubSub.getThreadNamePrefix());
		Keyspace keyspace = properties.getKeyspace();
		checks.atLeast("keyspace.concurrency", keyspace.getConcurrency(), 1);
		checks.atLeast("keyspace.read-ahead", keyspace.getReadAhead(), 1);
		checks.notNegative("keyspace.failover-timeout", keyspace.getFailoverTimeout());
		checks.positive("keyspace.timeout", keyspace.getTimeout());
	}

	/**
	 * What Slotwise adds to the connection pools of Jedis (always pooled in cluster mode)
	 * and of Lettuce when pooling is enabled. Pool sizes, the wait and the eviction
	 * period are Spring Boot's {@code spring.data.redis.*.pool.*} properties.
	 */
	public static class Pool {

		/**
		 * Whether Slotwise tunes the connection pool; when false the pool is left as
		 * Spring Boot configures it.
		 */
		private boolean enabled = true;

		/**
		 * Whether to PING every connection when it is borrowed; costs one round trip per
		 * command.
		 */
		private boolean testOnBorrow = false;

		/**
		 * Whether to PING every connection when it is returned; costs one round trip per
		 * command.
		 */
		private boolean testOnReturn = false;

		/**
		 * Whether the evictor PINGs idle connections, finding dead ones off the request
		 * path.
		 */
		private boolean testWhileIdle = true;

		/**
		 * Idle time after which a connection above min-idle is closed by the evictor.
		 */
		private Duration softMinEvictableIdleTime = Duration.ofMinutes(1);

		/**
		 * Whether to open min-idle connections to every master (and to replicas when
		 * reads go to replicas) before the application context finishes starting.
		 */
		private boolean prewarm = true;

		/**
		 * Whether pools register with JMX, which Micrometer's commons-pool2 meters read.
		 */
		private boolean jmxEnabled = true;

		/**
		 * Whether to log one warning per harmful pool setting found at start-up.
		 */
		private boolean advisor = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public boolean isTestOnBorrow() {
			return this.testOnBorrow;
		}

		public void setTestOnBorrow(boolean testOnBorrow) {
			this.testOnBorrow = testOnBorrow;
		}

		public boolean isTestOnReturn() {
			return this.testOnReturn;
		}

		public void setTestOnReturn(boolean testOnReturn) {
			this.testOnReturn = testOnReturn;
		}

		public boolean isTestWhileIdle() {
			return this.testWhileIdle;
		}

		public void setTestWhileIdle(boolean testWhileIdle) {
			this.testWhileIdle = testWhileIdle;
		}

		public Duration getSoftMinEvictableIdleTime() {
			return this.softMinEvictableIdleTime;
		}

		public void setSoftMinEvictableIdleTime(Duration softMinEvictableIdleTime) {
			this.softMinEvictableIdleTime = softMinEvictableIdleTime;
		}

		public boolean isPrewarm() {
			return this.prewarm;
		}

		public void setPrewarm(boolean prewarm) {
			this.prewarm = prewarm;
		}

		public boolean isJmxEnabled() {
			return this.jmxEnabled;
		}

		public void setJmxEnabled(boolean jmxEnabled) {
			this.jmxEnabled = jmxEnabled;
		}

		public boolean isAdvisor() {
			return this.advisor;
		}

		public void setAdvisor(boolean advisor) {
			this.advisor = advisor;
		}

	}

	/**
	 * Cluster topology (who owns which slot) lookups and refreshes.
	 */
	public static class Topology {

		/**
		 * Whether Slotwise replaces the topology provider (Jedis), samples Lettuce's
		 * refresh sources and caches Spring Data Redis's converted Lettuce topology.
		 */
		private boolean enabled = true;

		/**
		 * How long a fetched topology is served before the next lookup refreshes it
		 * (Jedis), plus up to a quarter more at random so that instances started together
		 * do not refresh together; MOVED and ASK replies invalidate it earlier.
		 */
		private Duration cacheTtl = Duration.ofSeconds(5);

		/**
		 * Least time between the starts of two topology refreshes of one client, however
		 * often failed or redirected calls invalidate the topology; also the first
		 * back-off step after a failed refresh.
		 */
		private Duration minRefreshInterval = Duration.ofSeconds(1);

		/**
		 * Whether refreshes ask replicas rather than masters when the topology knows
		 * replicas, keeping the cost of CLUSTER NODES off the nodes that serve writes.
		 */
		private boolean preferReplicas = true;

		/**
		 * How long a Jedis topology lookup waits for the refresh another thread runs when
		 * no topology is cached yet.
		 */
		private Duration initialTimeout = Duration.ofSeconds(10);

		/**
		 * How many randomly chosen nodes one Lettuce topology refresh asks, instead of
		 * every node; more than one keeps Lettuce's majority consensus between their
		 * answers.
		 */
		private int refreshSources = 3;

		/**
		 * Period of Lettuce's and Jedis's own background topology refresh; zero turns it
		 * off. A value set under spring.data.redis.lettuce.cluster.refresh.period wins
		 * for Lettuce.
		 */
		private Duration periodicRefresh = Duration.ofSeconds(60);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getCacheTtl() {
			return this.cacheTtl;
		}

		public void setCacheTtl(Duration cacheTtl) {
			this.cacheTtl = cacheTtl;
		}

		public Duration getMinRefreshInterval() {
			return this.minRefreshInterval;
		}

		public void setMinRefreshInterval(Duration minRefreshInterval) {
			this.minRefreshInterval = minRefreshInterval;
		}

		public boolean isPreferReplicas() {
			return this.preferReplicas;
		}

		public void setPreferReplicas(boolean preferReplicas) {
			this.preferReplicas = preferReplicas;
		}

		public Duration getInitialTimeout() {
			return this.initialTimeout;
		}

		public void setInitialTimeout(Duration initialTimeout) {
			this.initialTimeout = initialTimeout;
		}

		public int getRefreshSources() {
			return this.refreshSources;
		}

		public void setRefreshSources(int refreshSources) {
			this.refreshSources = refreshSources;
		}

		public Duration getPeriodicRefresh() {
			return this.periodicRefresh;
		}

		public void setPeriodicRefresh(Duration periodicRefresh) {
			this.periodicRefresh = periodicRefresh;
		}

	}

	/**
	 * Slot-aware parallel multi-key commands (mGet, mSet, del, unlink, exists).
	 */
	public static class MultiKey {

		/**
		 * Whether cross-slot mGet, mSet, del, unlink and exists run as one pipelined
		 * batch per node, the nodes in parallel, instead of Spring Data Redis's per-key
		 * or per-slot execution.
		 */
		private boolean enabled = true;

		/**
		 * Most keys in one MGET, MSET, DEL, UNLINK or EXISTS sent to a node; larger slot
		 * groups are split into several commands.
		 */
		private int maxKeysPerCommand = 500;

		/**
		 * Most commands written to one node before their replies are read, so that one
		 * call cannot monopolise a single-threaded server.
		 */
		private int maxCommandsPerPipeline = 10_000;

		/**
		 * How long a whole multi-key call may take before it fails with an exception
		 * naming the nodes and slots still outstanding; spring.data.redis.timeout caps it
		 * when set.
		 */
		private Duration timeout = Duration.ofSeconds(5);

		/**
		 * How often a command answered with MOVED, ASK or TRYAGAIN is sent again before
		 * the call fails.
		 */
		private int maxRedirects = 5;

		/**
		 * Where cross-slot reads (mGet, exists) of the multi-key engine go over Jedis:
		 * master, replica (a replica of the slot's master) or replica-preferred (a
		 * replica that has not failed lately, else the master); a replica that fails a
		 * batch hands it to the master. Replicas lag behind their master. Lettuce follows
		 * spring.data.redis.lettuce.read-from instead.
		 */
		private MultiKeyReadFrom readFrom = MultiKeyReadFrom.MASTER;

		private final JedisExecutor jedisExecutor = new JedisExecutor();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getMaxKeysPerCommand() {
			return this.maxKeysPerCommand;
		}

		public void setMaxKeysPerCommand(int maxKeysPerCommand) {
			this.maxKeysPerCommand = maxKeysPerCommand;
		}

		public int getMaxCommandsPerPipeline() {
			return this.maxCommandsPerPipeline;
		}

		public void setMaxCommandsPerPipeline(int maxCommandsPerPipeline) {
			this.maxCommandsPerPipeline = maxCommandsPerPipeline;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

		public int getMaxRedirects() {
			return this.maxRedirects;
		}

		public void setMaxRedirects(int maxRedirects) {
			this.maxRedirects = maxRedirects;
		}

		public MultiKeyReadFrom getReadFrom() {
			return this.readFrom;
		}

		public void setReadFrom(MultiKeyReadFrom readFrom) {
			this.readFrom = readFrom;
		}

		public JedisExecutor getJedisExecutor() {
			return this.jedisExecutor;
		}

	}

	/**
	 * The executor whose threads run the node batches of multi-key calls over Jedis in
	 * parallel (Lettuce needs none).
	 */
	public static class JedisExecutor {

		/**
		 * Number of threads running node batches of multi-key calls over Jedis; defaults
		 * to 4 per available processor. Keep it at or below the pool's max-active per
		 * node.
		 */
		private int threads = 4 * Runtime.getRuntime().availableProcessors();

		/**
		 * Most node batches waiting for a thread; beyond it callers get back-pressure
		 * (the batch runs on the caller's thread).
		 */
		private int queueCapacity = 1024;

		/**
		 * Prefix of the executor's thread names.
		 */
		private String threadNamePrefix = "slotwise-multikey-";

		/**
		 * How long shutdown waits for running batches to finish.
		 */
		private Duration awaitTermination = Duration.ofSeconds(10);

		/**
		 * Largest node batch of a multi-key call that the calling thread writes itself,
		 * with the call's other small batches, before it reads any reply, as a
		 * hand-written cluster pipeline does, instead of handing each to a thread of this
		 * executor. Kept under a socket's buffers, so that the write never waits on a
		 * node that stopped reading; 0 runs every batch on the executor.
		 */
		private DataSize inlineBatchSize = DataSize.ofKilobytes(32);

		public int getThreads() {
			return this.threads;
		}

		public void setThreads(int threads) {
			this.threads = threads;
		}

		public int getQueueCapacity() {
			return this.queueCapacity;
		}

		public void setQueueCapacity(int queueCapacity) {
			this.queueCapacity = queueCapacity;
		}

		public String getThreadNamePrefix() {
			return this.threadNamePrefix;
		}

		public void setThreadNamePrefix(String threadNamePrefix) {
			this.threadNamePrefix = threadNamePrefix;
		}

		public Duration getAwaitTermination() {
			return this.awaitTermination;
		}

		public void setAwaitTermination(Duration awaitTermination) {
			this.awaitTermination = awaitTermination;
		}

		public DataSize getInlineBatchSize() {
			return this.inlineBatchSize;
		}

		public void setInlineBatchSize(DataSize inlineBatchSize) {
			this.inlineBatchSize = inlineBatchSize;
		}

	}

	/**
	 * Micrometer meters for pools, topology, the executor and multi-key commands.
	 */
	public static class Metrics {

		/**
		 * Whether Slotwise registers its meters when a MeterRegistry exists.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Slotwise's Micrometer Observations of multi-key calls, cluster pipelines and
	 * transactions.
	 */
	public static class Observations {

		/**
		 * Whether Slotwise observes its multi-key calls, pipelines and transactions when
		 * an ObservationRegistry exists.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Pub/sub across the cluster: keyspace and keyevent subscriptions of
	 * {@code RedisMessageListenerContainer} on every master, and sharded pub/sub
	 * ({@code ShardedPubSub}, {@code ShardedMessageListenerContainer}).
	 */
	public static class PubSub {

		/**
		 * Whether subscriptions span the cluster (keyspace events from every master,
		 * sharded channels on their slot's master); when false Spring Data Redis
		 * subscribes on one node and no sharded pub/sub beans are created.
		 */
		private boolean enabled = true;

		/**
		 * How often each subscription compares its nodes with the cluster's masters, to
		 * follow failovers, new masters and restarted nodes.
		 */
		private Duration checkInterval = Duration.ofSeconds(1);

		/**
		 * How long a node may take to confirm a subscription before it is tried again.
		 */
		private Duration timeout = Duration.ofSeconds(2);

		/**
		 * Prefix of the names of the pub/sub threads (topology checks; Jedis readers, one
		 * per node subscribed).
		 */
		private String threadNamePrefix = "slotwise-pubsub-";

		/**
		 * Whether a ShardedMessageListenerContainer is created when the application
		 * declares none.
		 */
		private boolean shardedContainer = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getCheckInterval() {
			return this.checkInterval;
		}

		public void setCheckInterval(Duration checkInterval) {
			this.checkInterval = checkInterval;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

		public String getThreadNamePrefix() {
			return this.threadNamePrefix;
		}

		public void setThreadNamePrefix(String threadNamePrefix) {
			this.threadNamePrefix = threadNamePrefix;
		}

		public boolean isShardedContainer() {
			return this.shardedContainer;
		}

		public void setShardedContainer(boolean shardedContainer) {
			this.shardedContainer = shardedContainer;
		}

	}

	/**
	 * Cluster-wide key walks: {@code scan}, {@code keys} and cache clearing on every
	 * master in parallel.
	 */
	public static class Keyspace {

		/**
		 * Whether scan(ScanOptions), keys(pattern) and cache clearing on a cluster walk
		 * every master in parallel.
		 */
		private boolean enabled = true;

		/**
		 * How many nodes a scan reads at the same time.
		 */
		private int concurrency = 4;

		/**
		 * How many keys a scan buffers ahead of its consumer before it stops reading
		 * nodes.
		 */
		private int readAhead = 10_000;

		/**
		 * How long a scan whose node stopped answering waits for the node's slots to be
		 * served again.
		 */
		private Duration failoverTimeout = Duration.ofSeconds(30);

		/**
		 * How long keys(pattern) on all masters may take, and a cache clear's removal of
		 * one page of keys on its master.
		 */
		private Duration timeout = Duration.ofSeconds(60);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(int concurrency) {
			this.concurrency = concurrency;
		}

		public int getReadAhead() {
			return this.readAhead;
		}

		public void setReadAhead(int readAhead) {
			this.readAhead = readAhead;
		}

		public Duration getFailoverTimeout() {
			return this.failoverTimeout;
		}

		public void setFailoverTimeout(Duration failoverTimeout) {
			this.failoverTimeout = failoverTimeout;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

	/**
	 * Pipelines on a cluster over Jedis ({@code executePipelined}), which Spring Data
	 * Redis refuses.
	 */
	public static class Pipeline {

		/**
		 * Whether executePipelined works on a Jedis cluster, each command sent to its
		 * slot's master in one pipelined batch per node; when false Spring Data Redis's
		 * refusal stays. Lettuce pipelines on a cluster either way.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Transactions on a cluster: {@code MULTI}/{@code EXEC}/{@code WATCH} for keys of one
	 * hash slot, run on a connection of their own to the master serving the slot.
	 */
	public static class Transactions {

		/**
		 * Whether transactions (SessionCallback, @Transactional) run on a cluster for
		 * keys of one hash slot, and scripts whose keys span slots are refused before
		 * they are sent; when false Spring Data Redis's refusal stays.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * The near cache: values read from Redis kept in memory, dropped on every node's
	 * invalidation.
	 */
	public static class NearCache {

		/**
		 * Whether reads of the configured caches and key prefixes are served from memory
		 * while the nodes' client tracking says they are current; off by default, since a
		 * near cache changes what a read may return.
		 */
		private boolean enabled = false;

		/**
		 * Spring Cache names whose Redis caches get the near cache; empty means every
		 * cache the cache manager knows at start-up.
		 */
		private List<String> cacheNames = new ArrayList<>();

		/**
		 * Key prefixes whose template reads (opsForValue().get and multiGet) are served
		 * from the near cache.
		 */
		private List<String> keyPrefixes = new ArrayList<>();

		/**
		 * Most entries kept in memory.
		 */
		private long maxEntries = 10_000;

		/**
		 * Most bytes of keys and values kept in memory.
		 */
		private DataSize maxBytes = DataSize.ofMegabytes(64);

		/**
		 * Longest time an entry is kept, invalidated or not: the last safety net.
		 */
		private Duration timeToLive = Duration.ofMinutes(10);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public List<String> getCacheNames() {
			return this.cacheNames;
		}

		public void setCacheNames(List<String> cacheNames) {
			this.cacheNames = cacheNames;
		}

		public List<String> getKeyPrefixes() {
			return this.keyPrefixes;
		}

		public void setKeyPrefixes(List<String> keyPrefixes) {
			this.keyPrefixes = keyPrefixes;
		}

		public long getMaxEntries() {
			return this.maxEntries;
		}

		public void setMaxEntries(long maxEntries) {
			this.maxEntries = maxEntries;
		}

		public DataSize getMaxBytes() {
			return this.maxBytes;
		}

		public void setMaxBytes(DataSize maxBytes) {
			this.maxBytes = maxBytes;
		}

		public Duration getTimeToLive() {
			return this.timeToLive;
		}

		public void setTimeToLive(Duration timeToLive) {
			this.timeToLive = timeToLive;
		}

	}

}
