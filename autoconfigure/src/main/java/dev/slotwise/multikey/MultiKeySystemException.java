package dev.slotwise.multikey;

import java.util.Collection;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.RedisSystemException;

/**
 * A node answered a cross-slot multi-key command over Lettuce with an error reply (e.g.
 * {@code OOM}), or its redirects ran out: the {@code RedisSystemException} Spring Data
 * Redis raises for a Lettuce error reply, naming the node, the slot and the reply.
 */
public non-sealed class MultiKeySystemException extends RedisSystemException implements MultiKeyFailure {

	private final FailureDetails details;

	/**
	 * Creates an exception.
	 * @param what what failed, e.g. {@code "MGET failed"}
	 * @param nodes the nodes involved, as {@code host:port}
	 * @param slots the slots whose keys were not (all) processed
	 * @param cause the cause, if any
	 */
	public MultiKeySystemException(String what, Collection<String> nodes, Collection<Integer> slots,
			@Nullable Throwable cause) {
		this(FailureDetails.of(what, nodes, slots), cause);
	}

	private MultiKeySystemException(FailureDetails details, @Nullable Throwable cause) {
		super(details.message(cause), cause);
		this.details = details;
	}

	@Override
	public FailureDetails failureDetails() {
		return this.details;
	}

}
