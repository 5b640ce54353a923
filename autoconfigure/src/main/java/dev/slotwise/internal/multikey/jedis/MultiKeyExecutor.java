package dev.slotwise.internal.multikey.jedis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The bounded pool of named daemon threads on which per-node batches run (used by the
 * Jedis engine; Lettuce's I/O is asynchronous and needs no threads of its own).
 * <p>
 * When every thread is busy and the queue is full, a multi-key node batch
 * ({@link #bounded(Runnable, long)}) makes its caller wait for room in the queue until
 * the call's deadline, then fails with a {@link RejectedExecutionException} naming the
 * saturation: it never runs on the caller, where a stalled node would hold the caller
 * past {@code slotwise.multikey.timeout} (up to the socket timeout). Other work (pipeline
 * node groups, which have no call deadline) runs on the submitting thread instead. Either
 * way callers slow down rather than queue without bound. Deliberately not a
 * {@link Executor}, so that it never stands in for the application's own task executor.
 */
public final class MultiKeyExecutor implements AutoCloseable {

	/**
	 * The name of the thread that gives broken replica connections back when the batch
	 * threads come from a factory.
	 */
	static final String RELEASER_THREAD_NAME = "slotwise-multikey-release";

	/**
	 * How long an idle thread (a batch thread or the releaser) waits for work before it
	 * ends.
	 */
	private static final Duration IDLE_THREAD_KEEP_ALIVE = Duration.ofSeconds(60);

	private final ThreadPoolExecutor pool;

	private final ThreadPoolExecutor releaser;

	private final Duration awaitTermination;

	private final LongAdder callerRuns;

	private volatile long inlineBatchBytes = JedisNodeTransport.DEFAULT_INLINE_BATCH_BYTES;

	private MultiKeyExecutor(ThreadPoolExecutor pool, ThreadPoolExecutor releaser, Duration awaitTermination,
			LongAdder callerRuns) {
		this.pool = pool;
		this.releaser = releaser;
		this.awaitTermination = awaitTermination;
		this.callerRuns = callerRuns;
	}

	/**
	 * Creates an executor.
	 * @param threads the number of threads, positive
	 * @param queueCapacity the most batches waiting for a thread, positive
	 * @param threadNamePrefix the prefix of thread names
	 * @param awaitTermination how long {@link #close()} waits for running batches
	 * @return the executor; threads start on demand
	 */
	public static MultiKeyExecutor create(int threads, int queueCapacity, String threadNamePrefix,
			Duration awaitTermination) {
		if (threads < 1) {
			throw new IllegalArgumentException("'threads' must be positive, was " + threads);
		}
		if (queueCapacity < 1) {
			throw new IllegalArgumentException("'queueCapacity' must be positive, was " + queueCapacity);
		}
		AtomicInteger counter = new AtomicInteger();
		ThreadFactory factory = (runnable) -> {
			Thread thread = new Thread(runnable, threadNamePrefix + counter.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
		return create(threads, queueCapacity, factory, threadNamePrefix + "release", awaitTermination);
	}

	/**
	 * Creates an executor whose threads come from the given factory, for example virtual
	 * threads when the application enabled them
	 * ({@code spring.threads.virtual.enabled=true}), as Spring Boot gives Spring Data
	 * Redis's own cluster executor. The bound stays: at most {@code threads} batches run
	 * at once, each holding one pooled connection.
	 * @param threads the most batches running at once, positive
	 * @param queueCapacity the most batches waiting, positive
	 * @param threadFactory creates the threads
	 * @param awaitTermination how long {@link #close()} waits for running batches
	 * @return the executor; threads start on demand
	 */
	public static MultiKeyExecutor create(int threads, int queueCapacity, ThreadFactory threadFactory,
			Duration awaitTermination) {
		return create(threads, queueCapacity, threadFactory, RELEASER_THREAD_NAME, awaitTermination);
	}

	private static MultiKeyExecutor create(int threads, int queueCapacity, ThreadFactory threadFactory,
			String releaserName, Duration awaitTermination) {
		if (threads < 1) {
			throw new IllegalArgumentException("'threads' must be positive, was " + threads);
		}
		if (queueCapacity < 1) {
			throw new IllegalArgumentException("'queueCapacity' must be positive, was " + queueCapacity);
		}
		ThreadFactory factory = threadFactory;
		LongAdder callerRuns = new LongAdder();
		ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, IDLE_THREAD_KEEP_ALIVE.toMillis(),
				TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(queueCapacity), factory, (batch, executor) -> {
					if (batch instanceof Bounded bounded) {
						waitForRoom(bounded, executor);
					}
					else {
						runOnCaller(batch, executor, callerRuns);
					}
				});
		pool.allowCoreThreadTimeOut(true);
		ThreadPoolExecutor releaser = new ThreadPoolExecutor(1, 1, IDLE_THREAD_KEEP_ALIVE.toMillis(),
				TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), (runnable) -> {
					Thread thread = new Thread(runnable, releaserName);
					thread.setDaemon(true);
					return thread;
				});
		releaser.allowCoreThreadTimeOut(true);
		return new MultiKeyExecutor(pool, releaser, awaitTermination, callerRuns);
	}

	private static void runOnCaller(Runnable batch, ThreadPoolExecutor pool, LongAdder callerRuns) {
		if (pool.isShutdown()) {
			// Fail at once rather than dropping the batch, which would leave its caller
			// waiting for the timeout.
			throw new RejectedExecutionException("The Slotwise multi-key executor is shut down");
		}
		callerRuns.increment();
		batch.run();
	}

	/**
	 * Waits for room in the queue until the batch's deadline. Never runs the batch on the
	 * caller: a batch may stall on its node for the socket timeout, far beyond the call's
	 * deadline.
	 */
	private static void waitForRoom(Bounded batch, ThreadPoolExecutor pool) {
		if (pool.isShutdown()) {
			throw new RejectedExecutionException("The Slotwise multi-key executor is shut down");
		}
		long left = batch.deadline - System.nanoTime();
		boolean queued;
		try {
			queued = left > 0 && pool.getQueue().offer(batch, left, TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RejectedExecutionException("Interrupted while waiting for a free Slotwise multi-key thread");
		}
		if (!queued) {
			throw new RejectedExecutionException("The Slotwise multi-key executor is saturated: all "
					+ pool.getMaximumPoolSize() + " threads busy and " + pool.getQueue().size()
					+ " batches queued until the call's deadline (slotwise.multikey.timeout); raise "
					+ "slotwise.multikey.jedis-executor.threads or queue-capacity, or lower the callers' concurrency");
		}
		// Queued behind the executor's back: make sure a thread takes it, and take it
		// back if shutdown came first.
		if (pool.isShutdown() && pool.remove(batch)) {
			throw new RejectedExecutionException("The Slotwise multi-key executor is shut down");
		}
		pool.prestartCoreThread();
	}

	/**
	 * Marks a node batch of a call with its deadline: when the executor is saturated, its
	 * submitter waits for room until then instead of running it.
	 * @param batch the batch
	 * @param deadline the {@link System#nanoTime()} by which the call must end
	 * @return the batch to submit
	 */
	static Runnable bounded(Runnable batch, long deadline) {
		return new Bounded(batch, deadline);
	}

	public Executor executor() {
		return this.pool;
	}

	/**
	 * Sets the largest node batch of a multi-key call that the calling thread writes
	 * itself, together with the call's other small batches and before it reads any reply,
	 * instead of handing it to one of these threads
	 * ({@code slotwise.multikey.jedis-executor.inline-batch-size}). Takes effect for the
	 * engines created after it.
	 * @param bytes the size in bytes of the batch's commands; 0 runs every batch on these
	 * threads
	 */
	public void setInlineBatchBytes(long bytes) {
		if (bytes < 0) {
			throw new IllegalArgumentException("'bytes' must not be negative, was " + bytes);
		}
		this.inlineBatchBytes = bytes;
	}

	/**
	 * Returns the largest node batch the calling thread writes itself.
	 * @return the size in bytes; 0 when every batch runs on these threads
	 */
	public long inlineBatchBytes() {
		return this.inlineBatchBytes;
	}

	/**
	 * Returns the one thread that hands broken replica connections back to their pools
	 * off the batches' threads (commons-pool2 replaces such a connection on the returning
	 * thread, which towards a hanging replica would hold the batch).
	 */
	public Executor releaser() {
		return this.releaser;
	}

	/**
	 * Returns the thread pool behind this executor, for monitoring only (Micrometer's
	 * {@code ExecutorServiceMetrics} reads its counts). Work submitted to it directly
	 * would bypass the engine; do not submit any.
	 * @return the thread pool
	 */
	public ThreadPoolExecutor threadPool() {
		return this.pool;
	}

	/**
	 * Returns the number of threads running a batch now.
	 * @return the active thread count
	 */
	public int activeCount() {
		return this.pool.getActiveCount();
	}

	/**
	 * Returns the number of batches waiting for a thread.
	 * @return the queue size
	 */
	public int queueSize() {
		return this.pool.getQueue().size();
	}

	/**
	 * Returns the configured number of threads.
	 * @return the maximum pool size
	 */
	public int maxThreads() {
		return this.pool.getMaximumPoolSize();
	}

	/**
	 * Returns how many batches ran on the submitting thread because every thread was busy
	 * and the queue full (only pipeline node groups do; multi-key node batches wait for
	 * room instead).
	 * @return the number of batches run on the caller because of saturation, since
	 * creation
	 */
	public long callerRuns() {
		return this.callerRuns.sum();
	}

	/**
	 * Returns whether {@link #close()} was called.
	 * @return whether the executor accepts no more batches
	 */
	public boolean isShutdown() {
		return this.pool.isShutdown();
	}

	private record Bounded(Runnable batch, long deadline) implements Runnable {

		@Override
		public void run() {
			this.batch.run();
		}

	}

	/**
	 * Stops accepting batches, waits up to the configured time for running ones, then
	 * interrupts what is left.
	 */
	@Override
	public void close() {
		List<Runnable> unreleased = this.releaser.shutdownNow();
		this.pool.shutdown();
		try {
			if (!this.pool.awaitTermination(this.awaitTermination.toMillis(), TimeUnit.MILLISECONDS)) {
				this.pool.shutdownNow();
			}
		}
		catch (InterruptedException ex) {
			this.pool.shutdownNow();
			Thread.currentThread().interrupt();
		}
		// Broken connections still waiting to be given back: given back here, or their
		// sockets would stay open.
		for (Runnable release : unreleased) {
			try {
				release.run();
			}
			catch (RuntimeException ex) {
				// The pool is closing too: nothing more to release.
			}
		}
	}

}
