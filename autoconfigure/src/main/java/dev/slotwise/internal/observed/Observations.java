package dev.slotwise.internal.observed;

import java.util.ArrayList;
import java.util.List;

import dev.slotwise.internal.routing.NodeAddress;
import org.jspecify.annotations.Nullable;

/**
 * Combines the {@link Observed} operations that several observers started for one operation.
 */
public final class Observations {

	private Observations() {
	}

	/**
	 * Returns one observed operation that passes everything to each of the given ones: {@link Observed#NONE} for
	 * none, the operation itself for one.
	 * @param started the operations
	 * @return the combined operation
	 */
	public static Observed of(List<Observed> started) {
		return Observers.combine(started, Observed.NONE, All::new);
	}

	private record All(List<Observed> all) implements Observed {

		@Override
		public Observed batch(NodeAddress node, int commands) {
			List<Observed> batches = new ArrayList<>(this.all.size());
			for (Observed observed : this.all) {
				batches.add(observed.batch(node, commands));
			}
			return of(batches);
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
