package dev.slotwise.internal.observed;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * What every kind of observer (multi-key calls, pipelines, observed operations) does the
 * same way: several observers combined into one, and one observer handed out per client.
 */
public final class Observers {

	private Observers() {
	}

	/**
	 * Returns one observer that passes everything to each of the given ones: {@code none}
	 * for none (or only {@code none}), the observer itself for one, and a composite of a
	 * copy of the others for more.
	 * @param <O> the observer type
	 * @param observers the observers
	 * @param none the observer that ignores everything, left out of the result
	 * @param composite creates the observer that passes everything to each of a list of
	 * two or more
	 * @return the observer
	 */
	public static <O> O combine(List<? extends O> observers, O none, Function<List<O>, ? extends O> composite) {
		List<O> active = new ArrayList<>(observers.size());
		for (O observer : observers) {
			if (observer != none) {
				active.add(observer);
			}
		}
		return switch (active.size()) {
			case 0 -> none;
			case 1 -> active.get(0);
			default -> composite.apply(List.copyOf(active));
		};
	}

	/**
	 * Hands out one client's observer ({@code jedis}, {@code lettuce}). The meters
	 * implement it, and the auto-configuration asks for an observer's own {@code Source}
	 * type rather than theirs, so that an application without Micrometer never loads a
	 * class that needs it.
	 *
	 * @param <O> the observer type
	 */
	@FunctionalInterface
	public interface Source<O> {

		/**
		 * Returns the observer of a client.
		 * @param client the client tag
		 * @return the observer, the same for every call with the same client
		 */
		O forClient(String client);

	}

}
