package dev.slotwise.multikey;

import java.util.Collection;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.QueryTimeoutException;

/**
 * A cross-slot multi-key command did not end within its timeout
 * ({@code slotwise.multikey.timeout}, capped by {@code spring.data.redis.timeout}): the
 * {@code QueryTimeoutException} Spring Data Redis raises for a command timeout, naming
 * the nodes still in flight and their slots.
 */
public non-sealed class MultiKeyTimeoutException extends QueryTimeoutException implements MultiKeyFailure {

	private final FailureDetails details;

	/**
	 * Creates an exception.
	 * @param what what failed, e.g. {@code "MGET failed"}
	 * @param nodes the nodes involved, as {@code host:port}
	 * @param slots the slots whose keys were not (all) processed
	 * @param cause the cause, if any
	 */
	public MultiKeyTimeoutException(String what, Collection<String> nodes, Collection<Integer> slots,
			@Nullable Throwable cause) {
		this(FailureDetails.of(what, nodes, slots), cause);
	}

	private MultiKeyTimeoutException(FailureDetails details, @Nullable Throwable cause) {
		super(details.message(cause), cause);
		this.details = details;
	}

	@Override
	public FailureDetails failureDetails() {
		return this.details;
	}

}
