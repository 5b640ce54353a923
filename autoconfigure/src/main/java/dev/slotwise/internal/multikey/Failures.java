package dev.slotwise.internal.multikey;

import java.net.SocketTimeoutException;
import java.util.Collection;
import java.util.concurrent.TimeoutException;

import dev.slotwise.multikey.MultiKeyApiUsageException;
import dev.slotwise.multikey.MultiKeyConnectionFailureException;
import dev.slotwise.multikey.MultiKeyException;
import dev.slotwise.multikey.MultiKeyFailure;
import dev.slotwise.multikey.MultiKeySystemException;
import dev.slotwise.multikey.MultiKeyTimeoutException;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;

/**
 * Creates the exception a multi-key call fails with: of the type Spring Data Redis
 * translates the same failure to (see {@link MultiKeyFailure}), carrying the nodes and
 * slots.
 */
final class Failures {

	/**
	 * What went wrong, which decides the exception type.
	 */
	enum Kind {

		/** The call's deadline passed, or a read timed out. */
		TIMEOUT,

		/** A node could not be reached, or its connection broke. */
		CONNECTION,

		/** A node answered with an error reply, or redirects ran out. */
		ERROR_REPLY,

		/** Anything else. */
		OTHER

	}

	private Failures() {
	}

	/**
	 * Creates a failure.
	 * @param kind what went wrong
	 * @param transport the client behind the call, whose translation error replies follow
	 * @param what what failed
	 * @param nodes the nodes involved
	 * @param slots the slots not (all) processed
	 * @param cause the cause, if any
	 * @return the exception, a {@link MultiKeyFailure}
	 */
	static DataAccessException create(Kind kind, NodeTransport transport, String what, Collection<String> nodes,
			Collection<Integer> slots, @Nullable Throwable cause) {
		return switch (kind) {
			case TIMEOUT -> new MultiKeyTimeoutException(what, nodes, slots, cause);
			case CONNECTION -> new MultiKeyConnectionFailureException(what, nodes, slots, cause);
			case ERROR_REPLY ->
				transport.errorRepliesAreApiUsageErrors() ? new MultiKeyApiUsageException(what, nodes, slots, cause)
						: new MultiKeySystemException(what, nodes, slots, cause);
			case OTHER -> new MultiKeyException(what, nodes, slots, cause);
		};
	}

	/**
	 * Returns a copy of a failure raised on another thread, for the caller's thread: same
	 * type and details, the original's cause kept.
	 * @param failure the failure, a {@link MultiKeyFailure}
	 * @param transport the client behind the call
	 * @return the copy
	 */
	static DataAccessException rethrown(DataAccessException failure, NodeTransport transport) {
		MultiKeyFailure details = (MultiKeyFailure) failure;
		Throwable cause = (failure.getCause() != null) ? failure.getCause() : failure;
		return create(kindOf(failure), transport, details.what(), details.getNodes(), details.getSlots(), cause);
	}

	private static Kind kindOf(DataAccessException failure) {
		if (failure instanceof MultiKeyTimeoutException) {
			return Kind.TIMEOUT;
		}
		if (failure instanceof MultiKeyConnectionFailureException) {
			return Kind.CONNECTION;
		}
		if (failure instanceof MultiKeySystemException || failure instanceof MultiKeyApiUsageException) {
			return Kind.ERROR_REPLY;
		}
		return Kind.OTHER;
	}

	/**
	 * Classifies the failure of a node batch as Spring Data Redis's translation of the
	 * client's exception would, with one refinement: a read that timed out is a timeout,
	 * where Spring Data Redis reports Jedis's as a connection failure.
	 * @param failure the batch's failure
	 * @param transport the client behind the call, which translates its own exceptions
	 * @return the kind
	 */
	static Kind classify(Throwable failure, NodeTransport transport) {
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof SocketTimeoutException || cause instanceof TimeoutException
					|| cause instanceof QueryTimeoutException) {
				return Kind.TIMEOUT;
			}
		}
		DataAccessException translated = (failure instanceof DataAccessException known) ? known
				: transport.translate(failure);
		if (translated instanceof QueryTimeoutException) {
			return Kind.TIMEOUT;
		}
		if (translated instanceof RedisConnectionFailureException) {
			return Kind.CONNECTION;
		}
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof java.io.IOException) {
				return Kind.CONNECTION;
			}
		}
		return Kind.OTHER;
	}

}
