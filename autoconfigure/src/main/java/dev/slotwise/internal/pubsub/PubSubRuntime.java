package dev.slotwise.internal.pubsub;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The threads and settings cluster subscriptions run on, owned by whoever creates it
 * (Slotwise's auto-configuration, as a bean closed with the application context): one
 * small scheduler for topology checks and resubscriptions, and, for Jedis, whose pub/sub
 * blocks a thread per connection, one reader thread per node link, started on demand and
 * ending with its link. {@link #close()} closes every subscription still open, then stops
 * the threads.
 */
public final class PubSubRuntime implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(PubSubRuntime.class);

	private final Duration checkInterval;

	private final Duration timeout;

	private final ScheduledThreadPoolExecutor scheduler;

	private final ThreadPoolExecutor readers;

	private final Set<ClusterSubscription> subscriptions = ConcurrentHashMap.newKeySet();

	private volatile boolean closed;

	private PubSubRuntime(Duration checkInterval, Duration timeout, String threadNamePrefix) {
		this.checkInterval = checkInterval;
		this.timeout = timeout;
		this.scheduler = new ScheduledThreadPoolExecutor(2, threads(threadNamePrefix + "check-"));
		this.scheduler.setRemoveOnCancelPolicy(true);
		this.readers = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
				threads(threadNamePrefix + "reader-"));
	}

	/**
	 * Creates a runtime.
	 * @param checkInterval how often each subscription compares its nodes with the
	 * cluster's masters, positive
	 * @param timeout how long a node may take to confirm a subscription, positive
	 * @param threadNamePrefix the prefix of thread names
	 * @return the runtime; threads start on demand
	 */
	public static PubSubRuntime create(Duration checkInterval, Duration timeout, String threadNamePrefix) {
		if (checkInterval == null || checkInterval.isNegative() || checkInterval.isZero()) {
			throw new IllegalArgumentException("'checkInterval' must be positive, was " + checkInterval);
		}
		if (timeout == null || timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("'timeout' must be positive, was " + timeout);
		}
		if (threadNamePrefix == null) {
			throw new IllegalArgumentException("'threadNamePrefix' must not be null");
		}
		return new PubSubRuntime(checkInterval, timeout, threadNamePrefix);
	}

	private static ThreadFactory threads(String prefix) {
		AtomicInteger counter = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, prefix + counter.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

	Duration timeout() {
		return this.timeout;
	}

	Executor readers() {
		return this.readers;
	}

	/**
	 * Returns how many names every open subscription holds on each node, for health
	 * details.
	 * @return the subscriptions per node, {@code host:port}
	 */
	public Map<String, Integer> subscriptionsPerNode() {
		Map<String, Integer> counts = new TreeMap<>();
		for (ClusterSubscription subscription : this.subscriptions) {
			subscription.subscriptionsPerNode().forEach((node, count) -> counts.merge(node, count, Integer::sum));
		}
		return counts;
	}

	/**
	 * Returns how many subscriptions are open.
	 * @return the count
	 */
	public int openSubscriptions() {
		return this.subscriptions.size();
	}

	Registration register(ClusterSubscription subscription, Runnable check) {
		if (this.closed) {
			throw new IllegalStateException("The pub/sub runtime is closed: the application is shutting down");
		}
		this.subscriptions.add(subscription);
		long interval = this.checkInterval.toNanos();
		ScheduledFuture<?> future = this.scheduler.scheduleWithFixedDelay(check, interval, interval,
				TimeUnit.NANOSECONDS);
		return () -> {
			future.cancel(false);
			this.subscriptions.remove(subscription);
		};
	}

	void schedule(Runnable task, Duration delay) {
		try {
			this.scheduler.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// Closing: the subscription is closed with us.
		}
	}

	@Override
	public void close() {
		this.closed = true;
		for (ClusterSubscription subscription : List.copyOf(this.subscriptions)) {
			try {
				subscription.close();
			}
			catch (RuntimeException ex) {
				logger.debug("Closing a cluster subscription failed: " + ex);
			}
		}
		this.scheduler.shutdownNow();
		this.readers.shutdown();
		try {
			if (!this.readers.awaitTermination(this.timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				this.readers.shutdownNow();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.readers.shutdownNow();
		}
	}

	/**
	 * Tells whether {@link #close()} was called.
	 * @return whether closed
	 */
	public boolean isClosed() {
		return this.closed;
	}

	@FunctionalInterface
	interface Registration {

		void cancel();

	}

}
