package dev.slotwise.multikey;

import java.util.Collection;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.InvalidDataAccessApiUsageException;

/**
 * A node answered a cross-slot multi-key command over Jedis with an error reply (e.g.
 * {@code OOM}), or its redirects ran out: the {@code InvalidDataAccessApiUsageException}
 * Spring Data Redis raises for a Jedis error reply, naming the node, the slot and the
 * reply.
 */
public non-sealed class MultiKeyApiUsageException extends InvalidDataAccessApiUsageException
		implements MultiKeyFailure {

	private final FailureDetails details;

	/**
	 * Creates an exception.
	 * @param what what failed, e.g. {@code "MGET failed"}
	 * @param nodes the nodes involved, as {@code host:port}
	 * @param slots the slots whose keys were not (all) processed
	 * @param cause the cause, if any
	 */
	public MultiKeyApiUsageException(String what, Collection<String> nodes, Collection<Integer> slots,
			@Nullable Throwable cause) {
		this(FailureDetails.of(what, nodes, slots), cause);
	}

	private MultiKeyApiUsageException(FailureDetails details, @Nullable Throwable cause) {
		super(details.message(cause), cause);
		this.details = details;
	}

	@Override
	public FailureDetails failureDetails() {
		return this.details;
	}

}
