package dev.slotwise.internal.multikey;

import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.RedirectKind;
import org.jspecify.annotations.Nullable;

/**
 * A redirect error reply, parsed once: {@code MOVED 3999 127.0.0.1:6381},
 * {@code ASK 3999 ::1:6381} (an IPv6 host keeps its colons; the port follows the last
 * one), {@code MOVED 3999 :6381} (an empty host means the host of the node that
 * answered), or {@code TRYAGAIN …}.
 *
 * @param kind what the server asks for
 * @param target where to send the command again; for {@code TRYAGAIN}, the node that
 * answered
 */
record Redirect(RedirectKind kind, NodeAddress target) {

	/**
	 * Parses an error reply.
	 * @param reply the error line as the server sent it
	 * @param from the node that answered
	 * @return the redirect, or {@code null} when the reply is another error
	 * @throws IllegalArgumentException when the reply starts like a redirect but names no
	 * usable target
	 */
	static @Nullable Redirect parse(String reply, NodeAddress from) {
		if (reply.startsWith("TRYAGAIN")) {
			return new Redirect(RedirectKind.TRYAGAIN, from);
		}
		RedirectKind kind = reply.startsWith("MOVED ") ? RedirectKind.MOVED
				: reply.startsWith("ASK ") ? RedirectKind.ASK : null;
		if (kind == null) {
			return null;
		}
		// "<KIND> <slot> <endpoint>": the endpoint is the third word, and may itself hold
		// colons (IPv6).
		int slotStart = reply.indexOf(' ') + 1;
		int endpointStart = reply.indexOf(' ', slotStart) + 1;
		if (endpointStart == 0 || endpointStart == reply.length()) {
			throw new IllegalArgumentException("Redirect names no target: '" + reply + "'");
		}
		String endpoint = reply.substring(endpointStart).trim();
		try {
			return new Redirect(kind,
					endpoint.startsWith(":") && endpoint.indexOf(':', 1) < 0
							? new NodeAddress(from.host(), Integer.parseInt(endpoint.substring(1)))
							: NodeAddress.parse(endpoint));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Redirect names no usable target: '" + reply + "'", ex);
		}
	}

	/**
	 * Returns whether an error message is a redirect reply (or a client's exception
	 * carrying one).
	 * @param message the message
	 * @return whether it starts with {@code MOVED}, {@code ASK} or {@code TRYAGAIN}
	 */
	static boolean isRedirect(@Nullable String message) {
		return message != null
				&& (message.startsWith("MOVED ") || message.startsWith("ASK ") || message.startsWith("TRYAGAIN"));
	}

}
