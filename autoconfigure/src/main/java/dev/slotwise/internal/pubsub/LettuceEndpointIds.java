package dev.slotwise.internal.pubsub;

import java.lang.reflect.Method;

import io.lettuce.core.Delegating;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.event.connection.ConnectionEvent;
import io.lettuce.core.protocol.Endpoint;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Tells which connection a Lettuce connection event is about. Lettuce's events carry the endpoint id of their
 * connection, but behind a package-private getter ({@code ConnectionEventSupport.getEpId()}); a connection's endpoint
 * id is public ({@link Endpoint#getId()}). Without the id only the remote address is left, and any connection to the
 * node (a topology refresh opens and closes some) would look like ours. Checked once: when the getter cannot be
 * reached (a future Lettuce renames it), events are matched by address, which costs resubscriptions, not messages.
 */
final class LettuceEndpointIds {

	private static final Log logger = LogFactory.getLog(LettuceEndpointIds.class);

	private static final @Nullable Method EVENT_ENDPOINT_ID = eventEndpointId();

	private LettuceEndpointIds() {
	}

	static boolean available() {
		return EVENT_ENDPOINT_ID != null;
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
		Method method = EVENT_ENDPOINT_ID;
		if (method == null) {
			return null;
		}
		try {
			return (String) method.invoke(event);
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			return null;
		}
	}

	private static @Nullable Method eventEndpointId() {
		try {
			Class<?> support = Class.forName("io.lettuce.core.event.connection.ConnectionEventSupport");
			Method method = support.getDeclaredMethod("getEpId");
			method.setAccessible(true);
			return method;
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			logger.warn("Cannot read the endpoint id of Lettuce's connection events (" + ex
					+ "): pub/sub connections are renewed whenever any connection to their node drops");
			return null;
		}
	}

}
