package dev.slotwise.internal.pubsub;

import dev.slotwise.internal.compat.LettuceInternals;
import io.lettuce.core.Delegating;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.event.connection.ConnectionEvent;
import io.lettuce.core.protocol.Endpoint;
import org.jspecify.annotations.Nullable;

/**
 * Tells which connection a Lettuce connection event is about. Lettuce's events carry the
 * endpoint id of their connection, but behind a package-private getter, read through
 * {@link LettuceInternals#endpointId(ConnectionEvent)} (fast path
 * {@code lettuce-event-endpoint-id}); a connection's endpoint id is public
 * ({@link Endpoint#getId()}). Without the id only the remote address is left, and any
 * connection to the node (a topology refresh opens and closes some) would look like ours:
 * events are then matched by address, which costs resubscriptions, not messages.
 */
final class LettuceEndpointIds {

	private LettuceEndpointIds() {
	}

	/**
	 * Returns the endpoint id of a connection.
	 * @param connection the connection
	 * @return its id, or {@code null} when it cannot be told
	 */
	static @Nullable String of(StatefulConnection<?, ?> connection) {
		if (!(connection instanceof RedisChannelHandler<?, ?> handler)) {
			return null;
		}
		RedisChannelWriter writer = handler.getChannelWriter();
		for (int i = 0; i < 8 && writer instanceof Delegating<?> delegating; i++) {
			Object delegate = delegating.getDelegate();
			if (!(delegate instanceof RedisChannelWriter next)) {
				break;
			}
			writer = next;
		}
		return (writer instanceof Endpoint endpoint) ? endpoint.getId() : null;
	}

	/**
	 * Returns the endpoint id an event is about.
	 * @param event the event
	 * @return its id, or {@code null} when it cannot be told
	 */
	static @Nullable String of(ConnectionEvent event) {
		return LettuceInternals.endpointId(event);
	}

}
