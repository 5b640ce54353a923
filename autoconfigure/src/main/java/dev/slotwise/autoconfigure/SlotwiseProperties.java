package dev.slotwise.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.Assert;

/**
 * Configuration properties for Slotwise, bound from {@code slotwise.*}.
 * <p>
 * Values set under {@code spring.data.redis.*} always win over the defaults here; these only fill what the
 * application left open.
 */
@ConfigurationProperties(prefix = "slotwise")
public class SlotwiseProperties {

	/**
	 * Whether Slotwise is enabled; when false every Slotwise bean backs off and Spring Boot's Redis setup runs as
	 * if Slotwise were absent.
	 */
	private boolean enabled = true;

	private final Pool pool = new Pool();

	private final Topology topology = new Topology();

	private final MultiKey multikey = new MultiKey();

	private final Executor executor = new Executor();

	private final Metrics metrics = new Metrics();

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

	public Executor getExecutor() {
		return this.executor;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	/**
	 * Connection pool defaults for Jedis (always pooled in cluster mode) and for Lettuce when pooling is enabled.
	 */
	public static class Pool {

		/**
		 * Whether Slotwise tunes the connection pool; when false the pool is left as Spring Boot configures it.
		 */
		private boolean enabled = true;

		/**
		 * Maximum connections per node; defaults to 8 per available processor, at least 16, so that the multi-key
		 * executor (4 threads per processor) and as many application threads can each hold one.
		 */
		private @Nullable Integer maxTotal;

		/**
		 * Maximum idle connections per node; defaults to max-total so that bursts do not close and reopen
		 * connections.
		 */
		private @Nullable Integer maxIdle;

		/**
		 * Idle connections kept open per node, opened at start-up when pre-warm is on and restored by the evictor.
		 */
		private int minIdle = 4;

		/**
		 * How long a caller waits for a connection when the pool is exhausted before it fails; never unbounded.
		 */
		private Duration maxWait = Duration.ofSeconds(2);

		/**
		 * Whether to PING every connection when it is borrowed; costs one round trip per command.
		 */
		private boolean testOnBorrow = false;

		/**
		 * Whether to PING every connection when it is returned; costs one round trip per command.
		 */
		private boolean testOnReturn = false;

		/**
		 * Whether the evictor PINGs idle connections, finding dead ones off the request path.
		 */
		private boolean testWhileIdle = true;

		/**
		 * Time between evictor runs, which validate idle connections and restore min-idle; must be positive for
		 * test-while-idle to do anything.
		 */
		private Duration timeBetweenEvictionRuns = Duration.ofSeconds(30);

		/**
		 * Idle time after which a connection above min-idle is closed by the evictor.
		 */
		private Duration softMinEvictableIdleTime = Duration.ofMinutes(1);

		/**
		 * Whether to open min-idle connections to every master (and to replicas when reads go to replicas) before
		 * the application context finishes starting.
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

		public @Nullable Integer getMaxTotal() {
			return this.maxTotal;
		}

		public void setMaxTotal(@Nullable Integer maxTotal) {
			this.maxTotal = maxTotal;
		}

		public @Nullable Integer getMaxIdle() {
			return this.maxIdle;
		}

		public void setMaxIdle(@Nullable Integer maxIdle) {
			this.maxIdle = maxIdle;
		}

		public int getMinIdle() {
			return this.minIdle;
		}

		public void setMinIdle(int minIdle) {
			this.minIdle = minIdle;
		}

		public Duration getMaxWait() {
			return this.maxWait;
		}

		public void setMaxWait(Duration maxWait) {
			this.maxWait = maxWait;
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

		public Duration getTimeBetweenEvictionRuns() {
			return this.timeBetweenEvictionRuns;
		}

		public void setTimeBetweenEvictionRuns(Duration timeBetweenEvictionRuns) {
			this.timeBetweenEvictionRuns = timeBetweenEvictionRuns;
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
		 * Whether Slotwise replaces the topology provider (Jedis), samples Lettuce's refresh sources and caches
		 * Spring Data Redis's converted Lettuce topology.
		 */
		private boolean enabled = true;

		/**
		 * How long a fetched topology is served before the next lookup refreshes it (Jedis); MOVED and ASK replies
		 * invalidate it earlier.
		 */
		private Duration cacheTtl = Duration.ofSeconds(5);

		/**
		 * Whether refreshes ask replicas rather than masters when the topology knows replicas, keeping the cost of
		 * CLUSTER NODES off the nodes that serve writes.
		 */
		private boolean preferReplicas = true;

		/**
		 * How long a Jedis topology lookup waits for the refresh another thread runs when no topology is cached yet.
		 */
		private Duration initialTimeout = Duration.ofSeconds(10);

		/**
		 * How many randomly chosen nodes one Lettuce topology refresh asks, instead of every node; more than one
		 * keeps Lettuce's majority consensus between their answers.
		 */
		private int refreshSources = 3;

		/**
		 * Period of Lettuce's and Jedis's own background topology refresh; zero turns it off. A value set under
		 * spring.data.redis.lettuce.cluster.refresh.period wins for Lettuce.
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
			Assert.isTrue(!cacheTtl.isNegative(), "'slotwise.topology.cache-ttl' must not be negative");
			this.cacheTtl = cacheTtl;
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
			Assert.isTrue(!initialTimeout.isNegative() && !initialTimeout.isZero(),
					"'slotwise.topology.initial-timeout' must be positive");
			this.initialTimeout = initialTimeout;
		}

		public int getRefreshSources() {
			return this.refreshSources;
		}

		public void setRefreshSources(int refreshSources) {
			Assert.isTrue(refreshSources >= 1, "'slotwise.topology.refresh-sources' must be at least 1");
			this.refreshSources = refreshSources;
		}

		public Duration getPeriodicRefresh() {
			return this.periodicRefresh;
		}

		public void setPeriodicRefresh(Duration periodicRefresh) {
			Assert.isTrue(!periodicRefresh.isNegative(), "'slotwise.topology.periodic-refresh' must not be negative");
			this.periodicRefresh = periodicRefresh;
		}

	}

	/**
	 * Slot-aware parallel multi-key commands (mGet, mSet, del, unlink, exists).
	 */
	public static class MultiKey {

		/**
		 * Whether cross-slot mGet, mSet, del, unlink and exists run as one pipelined batch per node, the nodes in
		 * parallel, instead of Spring Data Redis's per-key or per-slot execution.
		 */
		private boolean enabled = true;

		/**
		 * Most keys in one MGET, MSET, DEL, UNLINK or EXISTS sent to a node; larger slot groups are split into
		 * several commands.
		 */
		private int maxKeysPerCommand = 500;

		/**
		 * Most commands written to one node before their replies are read, so that one call cannot monopolise a
		 * single-threaded server.
		 */
		private int maxCommandsPerPipeline = 10_000;

		/**
		 * How long a whole multi-key call may take before it fails with an exception naming the nodes and slots
		 * still outstanding.
		 */
		private Duration timeout = Duration.ofSeconds(5);

		/**
		 * How often a command answered with MOVED, ASK or TRYAGAIN is sent again before the call fails.
		 */
		private int maxRedirects = 5;

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

	}

	/**
	 * The executor that runs per-node batches of multi-key commands in parallel.
	 */
	public static class Executor {

		/**
		 * Number of threads running node batches of multi-key calls over Jedis (Lettuce needs none); defaults to 4
		 * per available processor. Keep it at or below the pool's max-total per node.
		 */
		private @Nullable Integer threads;

		/**
		 * Most node batches waiting for a thread; beyond it callers get back-pressure (the batch runs on the
		 * caller's thread).
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

		public @Nullable Integer getThreads() {
			return this.threads;
		}

		public void setThreads(@Nullable Integer threads) {
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

}
