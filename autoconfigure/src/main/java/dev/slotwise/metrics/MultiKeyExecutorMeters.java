package dev.slotwise.metrics;

import dev.slotwise.multikey.MultiKeyExecutor;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.util.Assert;

/**
 * Micrometer meters for the multi-key engine's executor (Jedis), read from the executor when a registry polls:
 * <ul>
 * <li>{@value #ACTIVE} (gauge): threads running a node batch;</li>
 * <li>{@value #QUEUED} (gauge): node batches waiting for a thread;</li>
 * <li>{@value #MAX} (gauge): the configured number of threads;</li>
 * <li>{@value #CALLER_RUNS} (function counter): node batches run on the calling thread because every thread was
 * busy and the queue full.</li>
 * </ul>
 */
public final class MultiKeyExecutorMeters implements MeterBinder {

	/** Name of the active threads gauge. */
	public static final String ACTIVE = "slotwise.executor.threads.active";

	/** Name of the queued batches gauge. */
	public static final String QUEUED = "slotwise.executor.queued";

	/** Name of the maximum threads gauge. */
	public static final String MAX = "slotwise.executor.threads.max";

	/** Name of the counter of batches run on the caller because of saturation. */
	public static final String CALLER_RUNS = "slotwise.executor.caller.runs";

	private final MultiKeyExecutor executor;

	/**
	 * Creates the meters for one executor.
	 * @param executor the executor
	 */
	public MultiKeyExecutorMeters(MultiKeyExecutor executor) {
		Assert.notNull(executor, "'executor' must not be null");
		this.executor = executor;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Gauge.builder(ACTIVE, this.executor, MultiKeyExecutor::activeCount)
			.description("Slotwise multi-key executor threads running a node batch")
			.baseUnit("threads")
			.register(registry);
		Gauge.builder(QUEUED, this.executor, MultiKeyExecutor::queueSize)
			.description("Node batches waiting for a Slotwise multi-key executor thread")
			.baseUnit("tasks")
			.register(registry);
		Gauge.builder(MAX, this.executor, MultiKeyExecutor::maxThreads)
			.description("Configured Slotwise multi-key executor threads")
			.baseUnit("threads")
			.register(registry);
		FunctionCounter.builder(CALLER_RUNS, this.executor, MultiKeyExecutor::callerRuns)
			.description("Node batches run on the calling thread because the Slotwise multi-key executor was saturated")
			.baseUnit("tasks")
			.register(registry);
	}

}
