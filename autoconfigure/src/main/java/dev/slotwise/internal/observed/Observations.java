package dev.slotwise.internal.observed;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import dev.slotwise.internal.routing.NodeAddress;
import org.jspecify.annotations.Nullable;

/**
 * Combines the {@link Observed} operations that several observers started for one
 * operation.
 */
public final class Observations {

	private Observations() {
	}

	/**
	 * Returns one observed operation that passes everything to each of the given ones:
	 * {@link Observed#NONE} for none, the operation itself for one.
	 * @param started the operations
	 * @return the combined operation
	 */
	public static Observed of(List<Observed> started) {
		return Observers.combine(started, Observed.NONE, All::new);
	}

	/**
	 * Starts an operation on each of several observers and combines what they started, as
	 * {@link #of} does.
	 * @param <O> the observer type
	 * @param observers the observers
	 * @param start starts the operation on one observer
	 * @return the combined operation
	 */
	public static <O> Observed start(List<O> observers, Function<? super O, Observed> start) {
		List<Observed> started = new ArrayList<>(observers.size());
		for (O observer : observers) {
			started.add(start.apply(observer));
		}
		return of(started);
	}

	private record All(List<Observed> all) implements Observed {

		@Override
		public Observed batch(NodeAddress node, int commands) {
			return start(this.all, (observed) -> observed.batch(node, commands));
		}

		@Override
		public Scope open() {
			List<Scope> scopes = new ArrayList<>(this.all.size());
			for (Observed observed : this.all) {
				scopes.add(observed.open());
			}
			return () -> {
				for (int i = scopes.size() - 1; i >= 0; i--) {
					scopes.get(i).close();
				}
			};
		}

		@Override
		public void resize(int size) {
			for (Observed observed : this.all) {
				observed.resize(size);
			}
		}

		@Override
		public void end(String outcome, @Nullable Throwable failure) {
			for (Observed observed : this.all) {
				observed.end(outcome, failure);
			}
		}

	}

}
