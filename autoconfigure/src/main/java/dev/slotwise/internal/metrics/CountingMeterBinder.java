package dev.slotwise.internal.metrics;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * A {@link ClientMeterBinder} whose observers keep their own counts and register, in each
 * registry bound, meters that read them: counts made before Spring Boot binds a registry
 * show once it does.
 *
 * @param <O> the observer type
 */
abstract class CountingMeterBinder<O extends CountingMeterBinder.Counting> extends ClientMeterBinder<O> {

	/**
	 * Returns the observer that counts one client's work for every registry this binder
	 * is bound to.
	 * @param client the client tag, {@code jedis} or {@code lettuce}
	 * @return the observer, the same for every call with the same client
	 */
	public final O forClient(String client) {
		return observer(client);
	}

	@Override
	protected final void register(O observer, MeterRegistry registry, String client) {
		observer.register(registry);
	}

	/**
	 * An observer that keeps its own counts.
	 */
	interface Counting {

		/**
		 * Registers meters that read the observer's counts.
		 * @param registry the registry
		 */
		void register(MeterRegistry registry);

	}

}
