package dev.slotwise.multikey;

import java.util.Collection;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessResourceFailureException;

/**
 * A cross-slot multi-key command failed for a reason Spring Data Redis has no more
 * specific type for: no node serves a slot, the call was cancelled or interrupted, or the
 * Jedis multi-key executor is saturated or shut down. See {@link MultiKeyFailure} for the
 * other types a cross-slot call fails with.
 */
public non-sealed class MultiKeyException extends DataAccessResourceFailureException implements MultiKeyFailure {

	private final FailureDetails details;

	/**
	 * Creates an exception.
	 * @param what what failed, e.g. {@code "MGET failed"}
	 * @param nodes the nodes involved, as {@code host:port}
	 * @param slots the slots whose keys were not (all) processed
	 * @param cause the cause, if any
	 */
	public MultiKeyException(String what, Collection<String> nodes, Collection<Integer> slots,
			@Nullable Throwable cause) {
		this(FailureDetails.of(what, nodes, slots), cause);
	}

	private MultiKeyException(FailureDetails details, @Nullable Throwable cause) {
		super(details.message(cause), cause);
		this.details = details;
	}

	@Override
	public FailureDetails failureDetails() {
		return this.details;
	}

}
