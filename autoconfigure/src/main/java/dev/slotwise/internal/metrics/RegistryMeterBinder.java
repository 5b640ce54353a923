package dev.slotwise.internal.metrics;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import java.util.function.Function;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * A {@link ClientMeterBinder} whose meters are registered up front, per client and
 * registry: each registry bound gets an observer of its own that records in its meters,
 * and a client's observer passes everything to those of every registry bound so far. A
 * call then costs a few array lookups and record operations, never a registry lookup.
 *
 * @param <O> the observer type
 */
public abstract class RegistryMeterBinder<O> extends ClientMeterBinder<RegistryMeterBinder.Client<O>> {

	private final Function<List<O>, O> each;

	private final BiFunction<MeterRegistry, String, O> meters;

	/**
	 * Creates a binder.
	 * @param each returns an observer that passes everything to each observer a list
	 * holds at the time
	 * @param meters registers a client's meters in one registry (the registry, the client
	 * tag) and returns an observer that records in them
	 */
	protected RegistryMeterBinder(Function<List<O>, O> each, BiFunction<MeterRegistry, String, O> meters) {
		this.each = each;
		this.meters = meters;
	}

	/**
	 * Returns the observer that records one client's work in every registry this binder
	 * is bound to.
	 * @param client the client tag, {@code jedis} or {@code lettuce}
	 * @return the observer, the same for every call with the same client
	 */
	public final O forClient(String client) {
		return observer(client).observer();
	}

	@Override
	protected final Client<O> newObserver(String client) {
		List<O> meters = new CopyOnWriteArrayList<>();
		return new Client<>(meters, this.each.apply(meters));
	}

	@Override
	protected final void register(Client<O> observer, MeterRegistry registry, String client) {
		observer.meters().add(this.meters.apply(registry, client));
	}

	/**
	 * A client's observer and the observers of its meters in each registry, which it
	 * passes everything to.
	 *
	 * @param <O> the observer type
	 * @param meters the observers of the client's meters, one per registry
	 * @param observer the client's observer
	 */
	protected record Client<O>(List<O> meters, O observer) {

	}

}
