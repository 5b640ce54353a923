package dev.slotwise.internal.metrics;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.util.Assert;

/**
 * A {@link MeterBinder} that hands out one observer per client ({@code jedis},
 * {@code lettuce}) and registers that client's meters in every registry it is bound to.
 * Observers are handed out while connection factories are built, which can be before
 * Spring Boot binds the registries, so an observer exists first and gains its meters when
 * a registry binds (and a registry bound first gives an observer its meters at once).
 *
 * @param <O> the observer type
 */
public abstract class ClientMeterBinder<O> implements MeterBinder {

	private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

	private final Map<String, O> observers = new ConcurrentHashMap<>();

	@Override
	public final synchronized void bindTo(MeterRegistry registry) {
		Assert.notNull(registry, "'registry' must not be null");
		this.registries.add(registry);
		this.observers.forEach((client, observer) -> register(observer, registry, client));
	}

	/**
	 * Returns the observer of one client, creating it (with its meters in every bound
	 * registry) on first use.
	 * @param client the client tag
	 * @return the observer, the same for every call with the same client
	 */
	protected final synchronized O observer(String client) {
		Assert.hasText(client, "'client' must not be empty");
		return this.observers.computeIfAbsent(client, (name) -> {
			O observer = newObserver(name);
			this.registries.forEach((registry) -> register(observer, registry, name));
			return observer;
		});
	}

	/**
	 * Returns the registries bound so far, for meters an observer adds later (a node seen
	 * for the first time).
	 * @return a live, thread-safe view
	 */
	protected final List<MeterRegistry> registries() {
		return this.registries;
	}

	/**
	 * Creates the observer of a client, with no meters yet.
	 * @param client the client tag
	 * @return the observer
	 */
	protected abstract O newObserver(String client);

	/**
	 * Registers a client's meters in one registry and attaches them to its observer.
	 * @param observer the client's observer
	 * @param registry the registry
	 * @param client the client tag
	 */
	protected abstract void register(O observer, MeterRegistry registry, String client);

}
