package dev.slotwise.internal.metrics;

import dev.slotwise.internal.multikey.jedis.MultiKeyExecutor;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ExecutorServiceMetrics;

import org.springframework.util.Assert;

/**
 * Micrometer meters for the multi-key engine's executor (Jedis), tagged
 * {@code name=multikey}: Micrometer's own {@link ExecutorServiceMetrics} under the
 * {@code slotwise.} prefix ({@code slotwise.executor.active},
 * {@code slotwise.executor.queued}, {@code slotwise.executor.completed},
 * {@code slotwise.executor.pool.size}, {@code slotwise.executor.pool.core},
 * {@code slotwise.executor.pool.max}, {@code slotwise.executor.queue.remaining}), plus
 * {@value #CALLER_RUNS} (function counter): node batches run on the calling thread
 * because every thread was busy and the queue full, which no generic executor binder can
 * see.
 */
public final class MultiKeyExecutorMeters implements MeterBinder {

	/** Prefix of Micrometer's executor meters. */
	static final String PREFIX = "slotwise";

	/** Name of the active threads gauge. */
	public static final String ACTIVE = "slotwise.executor.active";

	/** Name of the queued batches gauge. */
	public static final String QUEUED = "slotwise.executor.queued";

	/** Name of the maximum threads gauge. */
	public static final String MAX = "slotwise.executor.pool.max";

	/** Name of the counter of batches run on the caller because of saturation. */
	public static final String CALLER_RUNS = "slotwise.executor.caller.runs";

	/** Value of the {@code name} tag of every executor meter. */
	public static final String NAME = "multikey";

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
		Tags tags = Tags.of("name", NAME);
		new ExecutorServiceMetrics(this.executor.threadPool(), NAME, PREFIX, Tags.empty()).bindTo(registry);
		FunctionCounter.builder(CALLER_RUNS, this.executor, MultiKeyExecutor::callerRuns)
			.description("Node batches run on the calling thread because the Slotwise multi-key executor was saturated")
			.baseUnit("tasks")
			.tags(tags)
			.register(registry);
	}

}
