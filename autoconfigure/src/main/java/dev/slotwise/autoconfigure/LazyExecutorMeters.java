package dev.slotwise.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import dev.slotwise.internal.metrics.MultiKeyExecutorMeters;
import dev.slotwise.internal.multikey.jedis.MultiKeyExecutor;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

/**
 * Binds the multi-key executor's meters once both the executor and a registry exist, in
 * whichever order they come: the executor is created only when a Slotwise Jedis cluster
 * factory needs it, which may be before or after Spring Boot binds the application's
 * registries.
 */
final class LazyExecutorMeters implements MeterBinder, MultiKeyExecutorListener {

	private final List<MeterRegistry> registries = new ArrayList<>();

	private @Nullable MultiKeyExecutorMeters meters;

	@Override
	public synchronized void bindTo(MeterRegistry registry) {
		this.registries.add(registry);
		if (this.meters != null) {
			this.meters.bindTo(registry);
		}
	}

	@Override
	public synchronized void executorCreated(MultiKeyExecutor executor) {
		this.meters = new MultiKeyExecutorMeters(executor);
		this.registries.forEach(this.meters::bindTo);
	}

}
