package dev.slotwise.internal.multikey;

import java.util.Objects;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * The one way an engine is kept: built on first use for what it runs over (a client and
 * topology provider, a native connection), and built again when that changes, as it does
 * when the connection factory restarts. Read without a lock, as every connection handed
 * out asks; built under one, so that racing callers build one engine per change, not one
 * each (an engine may own threads and connections: a second one would be left running).
 *
 * @param <K> what the engine runs over, compared with {@link Object#equals(Object)}
 * @param <E> the engine
 */
public final class EngineHolder<K, E> {

	private final Function<K, E> builder;

	private volatile @Nullable Held<K, E> held;

	public EngineHolder(Function<K, E> builder) {
		this.builder = builder;
	}

	/**
	 * Returns the engine over the given state, building it when the state changed since
	 * the last call.
	 * @param over what the engine runs over now
	 * @return the engine
	 */
	public E get(K over) {
		Held<K, E> current = this.held;
		return (current != null && Objects.equals(current.over, over)) ? current.engine : build(over);
	}

	private synchronized E build(K over) {
		Held<K, E> current = this.held;
		if (current == null || !Objects.equals(current.over, over)) {
			current = new Held<>(over, this.builder.apply(over));
			this.held = current;
		}
		return current.engine;
	}

	private record Held<K, E>(K over, E engine) {
	}

}
