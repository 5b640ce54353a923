package dev.slotwise.internal.compat;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.lettuce.core.OrderingReadFromAccessor;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisChannelWriter;
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
 * {@link OrderingReadFromAccessor} (public, but a door to a package-private method: {@link #readFromOrder()}).</li>
 * </ul>
 * Both are looked up once, when this class loads; each {@link FastPath} says whether it was found, and the callers
 * fall back as its methods say.
 */
public final class LettuceInternals {

	/** What {@link #batchWrite()} relies on. */
	static final String CHANNEL_FIELD = "io.lettuce.core.protocol.DefaultEndpoint.channel";

	/** What {@link #readFromOrder()} relies on. */
	static final String ORDER_ACCESSOR = "io.lettuce.core.OrderingReadFromAccessor.isOrderSensitive(ReadFrom)";

	private static final @Nullable VarHandle CHANNEL;

	private static final @Nullable String CHANNEL_PROBLEM;

	private static final @Nullable String ORDER_PROBLEM;

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
		ORDER_PROBLEM = ClassUtils.isPresent("io.lettuce.core.OrderingReadFromAccessor",
				LettuceInternals.class.getClassLoader()) ? null : ORDER_ACCESSOR + " is missing";
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
	 * Describes how cross-slot reads honour the order of a {@code ReadFrom} (e.g. {@code replicaPreferred}).
	 * @return the fast path, active when the accessor exists
	 */
	public static FastPath readFromOrder() {
		return new FastPath("lettuce-read-from-order", ORDER_ACCESSOR,
				"every ReadFrom counts as unordered: cross-slot reads pick at random among the nodes it selects",
				ORDER_PROBLEM);
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
