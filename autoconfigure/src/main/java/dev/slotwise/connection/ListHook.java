package dev.slotwise.connection;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.springframework.util.Assert;

/**
 * A hook of a connection factory that any number of contributors add to, run in the order
 * they were added, such as the listeners called when the factory starts.
 *
 * @param <T> the type of the contributions
 */
final class ListHook<T> {

	private final List<Contribution<T>> contributions = new CopyOnWriteArrayList<>();

	/**
	 * Adds a contribution after those already added.
	 * @param contributor the name of the contributor, for messages
	 * @param name the name of the contribution's argument, for the message when it is
	 * {@code null}
	 * @param value the contribution
	 */
	void add(String contributor, String name, T value) {
		Assert.notNull(value, () -> "'" + name + "' must not be null");
		Assert.hasText(contributor, "'contributor' must not be empty");
		this.contributions.add(new Contribution<>(contributor, value));
	}

	/**
	 * Calls the action with each contribution, in order.
	 * @param action the action
	 */
	void forEach(Consumer<T> action) {
		this.contributions.forEach((contribution) -> action.accept(contribution.value()));
	}

	/**
	 * Returns the contributors, in order.
	 * @return their names
	 */
	List<String> contributors() {
		return this.contributions.stream().map(Contribution::contributor).toList();
	}

	private record Contribution<T>(String contributor, T value) {
	}

}
