package dev.slotwise.internal.nearcache;

/**
 * A node refused to track keys for the near cache (an ACL without {@code CLIENT} or the
 * invalidation channel, a server older than Redis 6, a client speaking a protocol the
 * link cannot use): the near cache then keeps nothing.
 */
final class TrackingRefusedException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	TrackingRefusedException(String message, Throwable cause) {
		super(message, cause);
	}

	TrackingRefusedException(String message) {
		super(message);
	}

}
