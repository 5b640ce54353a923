package dev.slotwise.multikey;

import java.util.Collection;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.RedisConnectionFailureException;

/**
 * A node of a cross-slot multi-key command could not be reached or its connection broke:
 * the {@code RedisConnectionFailureException} Spring Data Redis raises for it, naming the
 * node and its slots.
 */
public non-sealed class MultiKeyConnectionFailureException extends RedisConnectionFailureException
		implements MultiKeyFailure {

	private final FailureDetails details;

	/**
	 * Creates an exception.
	 * @param what what failed, e.g. {@code "MGET failed"}
	 * @param nodes the nodes involved, as {@code host:port}
	 * @param slots the slots whose keys were not (all) processed
	 * @param cause the cause, if any
	 */
	public MultiKeyConnectionFailureException(String what, Collection<String> nodes, Collection<Integer> slots,
			@Nullable Throwable cause) {
		this(FailureDetails.of(what, nodes, slots), cause);
	}

	private MultiKeyConnectionFailureException(FailureDetails details, @Nullable Throwable cause) {
		super(details.message(cause), cause);
		this.details = details;
	}

	@Override
	public FailureDetails failureDetails() {
		return this.details;
	}

}
