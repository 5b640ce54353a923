package dev.slotwise.internal.compat;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;

import io.lettuce.core.CommandListenerWriter;
import io.lettuce.core.OrderingReadFromAccessor;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.connection.ConnectionEvent;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.netty.channel.Channel;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * The one place Slotwise reaches into Lettuce:
 * <ul>
 * <li>the Netty channel of a node connection's {@link DefaultEndpoint} (a protected field), on which a node batch is
 * written as one message ({@link #batchWrite()});</li>
 * <li>whether a {@link ReadFrom} keeps its nodes' order, which Lettuce answers only through
 * {@link OrderingReadFromAccessor} (public, but a door to a package-private method: {@link #readFromOrder()});</li>
 * <li>the endpoint id a connection event is about, behind the package-private
 * {@code ConnectionEventSupport.getEpId()} ({@link #eventEndpointId()}), by which pub/sub tells its own connections'
 * events from those of any other connection to the same node;</li>
 * <li>the {@link CommandListener} a node connection's {@link CommandListenerWriter} notifies (a private field), so that
 * a node batch written as one message still reaches the application's command listeners
 * ({@link #batchWriteListeners()}).</li>
 * </ul>
 * All are looked up once, when this class loads; each {@link FastPath} says whether it was found, and the callers
 * fall back as its methods say.
 */
public final class LettuceInternals {

	/** What {@link #batchWrite()} relies on. */
	static final String CHANNEL_FIELD = "io.lettuce.core.protocol.DefaultEndpoint.channel";

	/** What {@link #readFromOrder()} relies on. */
	static final String ORDER_ACCESSOR = "io.lettuce.core.OrderingReadFromAccessor.isOrderSensitive(ReadFrom)";

	/** What {@link #eventEndpointId()} relies on. */
	static final String EVENT_ENDPOINT_ID = "io.lettuce.core.event.connection.ConnectionEventSupport.getEpId()";

	/** What {@link #batchWriteListeners()} relies on. */
	static final String LISTENER_FIELD = "io.lettuce.core.CommandListenerWriter.listener";

	private static final @Nullable VarHandle CHANNEL;

	private static final @Nullable VarHandle LISTENER;

	private static final @Nullable String LISTENER_PROBLEM;

	private static final @Nullable String CHANNEL_PROBLEM;

	private static final @Nullable String ORDER_PROBLEM;

	private static final @Nullable MethodHandle EVENT_ENDPOINT;

	private static final @Nullable String EVENT_ENDPOINT_PROBLEM;

	static {
		VarHandle channel = null;
		String problem = null;
		try {
			channel = MethodHandles.privateLookupIn(DefaultEndpoint.class, MethodHandles.lookup())
				.findVarHandle(DefaultEndpoint.class, "channel", Channel.class);
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			problem = "cannot read " + CHANNEL_FIELD + ": " + ex;
		}
		CHANNEL = channel;
		CHANNEL_PROBLEM = problem;
		VarHandle listener = null;
		problem = null;
		try {
			listener = MethodHandles.privateLookupIn(CommandListenerWriter.class, MethodHandles.lookup())
				.findVarHandle(CommandListenerWriter.class, "listener", CommandListener.class);
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			problem = "cannot read " + LISTENER_FIELD + ": " + ex;
		}
		LISTENER = listener;
		LISTENER_PROBLEM = problem;
		ORDER_PROBLEM = ClassUtils.isPresent("io.lettuce.core.OrderingReadFromAccessor",
				LettuceInternals.class.getClassLoader()) ? null : ORDER_ACCESSOR + " is missing";
		MethodHandle endpoint = null;
		problem = null;
		try {
			Class<?> support = Class.forName("io.lettuce.core.event.connection.ConnectionEventSupport", false,
					ConnectionEvent.class.getClassLoader());
			endpoint = MethodHandles.privateLookupIn(support, MethodHandles.lookup())
				.findVirtual(support, "getEpId", MethodType.methodType(String.class));
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			problem = "cannot call " + EVENT_ENDPOINT_ID + ": " + ex;
		}
		EVENT_ENDPOINT = endpoint;
		EVENT_ENDPOINT_PROBLEM = problem;
	}

	private LettuceInternals() {
	}

	/**
	 * Describes the one-message write of a node batch.
	 * @return the fast path, active when the channel field was found
	 */
	public static FastPath batchWrite() {
		return new FastPath("lettuce-batch-write", CHANNEL_FIELD,
				"node batches are written command by command through Lettuce's endpoint", CHANNEL_PROBLEM);
	}

	/**
	 * Describes the one-message write of a node batch on a connection whose client has {@code CommandListener}s: the
	 * batch's commands are reported to them as Lettuce's {@link CommandListenerWriter} reports its own.
	 * @return the fast path, active when the listener field was found
	 */
	public static FastPath batchWriteListeners() {
		return new FastPath("lettuce-batch-write-listeners", LISTENER_FIELD,
				"with a CommandListener registered on the client, node batches are written command by command through "
						+ "Lettuce's writers (the listeners see every command, as without Slotwise)",
				LISTENER_PROBLEM);
	}

	/**
	 * Returns the listener a node connection's {@link CommandListenerWriter} notifies of each command it writes.
	 * @param writer the writer
	 * @return the listener (Lettuce's multicaster over the client's listeners), or {@code null} when it cannot be read:
	 * write through the writer then
	 */
	public static @Nullable CommandListener commandListener(CommandListenerWriter writer) {
		VarHandle handle = LISTENER;
		return (handle != null) ? (CommandListener) handle.get(writer) : null;
	}

	/**
	 * Describes how cross-slot reads honour the order of a {@code ReadFrom} (e.g. {@code replicaPreferred}).
	 * @return the fast path, active when the accessor exists
	 */
	public static FastPath readFromOrder() {
		return new FastPath("lettuce-read-from-order", ORDER_ACCESSOR,
				"every ReadFrom counts as unordered: cross-slot reads pick at random among the nodes it selects",
				ORDER_PROBLEM);
	}

	/**
	 * Describes how pub/sub tells which connection a Lettuce connection event is about.
	 * @return the fast path, active when the getter was found
	 */
	public static FastPath eventEndpointId() {
		return new FastPath("lettuce-event-endpoint-id", EVENT_ENDPOINT_ID,
				"pub/sub matches connection events by the node's address: any connection to the node that drops "
						+ "(a topology refresh opens and closes some) renews its subscriptions, which costs "
						+ "resubscriptions, not messages",
				EVENT_ENDPOINT_PROBLEM);
	}

	/**
	 * Returns the endpoint id a connection event is about, as {@code Endpoint.getId()} gives a connection's.
	 * @param event the event
	 * @return the id, or {@code null} when the event has none or it cannot be read
	 */
	public static @Nullable String endpointId(ConnectionEvent event) {
		MethodHandle handle = EVENT_ENDPOINT;
		if (handle == null || !handle.type().parameterType(0).isInstance(event)) {
			return null;
		}
		try {
			return (String) handle.invoke(event);
		}
		catch (Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			return null;
		}
	}

	/**
	 * Returns the channel a node connection's endpoint writes to, when it is active.
	 * @param writer the connection's channel writer, past any delegating writer
	 * @return the active channel, or {@code null} when the writer is no {@link DefaultEndpoint}, the field cannot be
	 * read, or the channel is not active (reconnecting, closed): write through the endpoint then
	 */
	public static @Nullable Channel activeChannel(RedisChannelWriter writer) {
		VarHandle handle = CHANNEL;
		if (handle == null || !(writer instanceof DefaultEndpoint endpoint)) {
			return null;
		}
		Channel channel = (Channel) handle.getVolatile(endpoint);
		return (channel != null && channel.isActive()) ? channel : null;
	}

	/**
	 * Returns whether a {@link ReadFrom} keeps its nodes' order (the first selected node is the one to use).
	 * @param readFrom the setting
	 * @return whether order matters; {@code false} when Lettuce cannot tell
	 */
	public static boolean isOrderSensitive(ReadFrom readFrom) {
		return ORDER_PROBLEM == null && OrderingReadFromAccessor.isOrderSensitive(readFrom);
	}

}
