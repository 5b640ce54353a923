package dev.slotwise.internal.compat;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.function.Supplier;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.CommandListenerWriter;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.OrderingReadFromAccessor;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.cluster.ClusterPushHandler;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.StatefulRedisClusterConnectionImpl;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.connection.ConnectionEvent;
import io.lettuce.core.json.JsonParser;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CompleteableCommand;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.lettuce.core.protocol.RedisCommand;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.DataType;
import org.springframework.data.redis.core.KeyScanOptions;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.ScanOptions.ScanOptionsBuilder;
import org.springframework.util.ClassUtils;

/**
 * The one place Slotwise reaches into Lettuce:
 * <ul>
 * <li>the Netty channel of a node connection's {@link DefaultEndpoint} (a protected
 * field), on which a node batch is written as one message ({@link #batchWrite()});</li>
 * <li>whether a {@link ReadFrom} keeps its nodes' order, which Lettuce answers only
 * through {@link OrderingReadFromAccessor} (public, but a door to a package-private
 * method: {@link #readFromOrder()});</li>
 * <li>the endpoint id a connection event is about, behind the package-private
 * {@code ConnectionEventSupport.getEpId()} ({@link #eventEndpointId()}), by which pub/sub
 * tells its own connections' events from those of any other connection to the same
 * node;</li>
 * <li>the {@link CommandListener} a node connection's {@link CommandListenerWriter}
 * notifies (a private field), so that a node batch written as one message still reaches
 * the application's command listeners ({@link #batchWriteListeners()});</li>
 * <li>the {@code MATCH}, {@code COUNT} and {@code TYPE} of {@link ScanArgs}, which it
 * keeps private: read back from the arguments as Lettuce encodes them for the server
 * (public {@code build} and {@code encode}, but a reading of Lettuce's wire format:
 * {@link #scanArgs()}).</li>
 * </ul>
 * All are looked up once, when this class loads; each {@link FastPath} says whether it
 * was found, and the callers fall back as its methods say.
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

	/** What {@link #cancelledStayUnwritten(AbstractRedisClient)} relies on. */
	static final String CLUSTER_CONNECTION = "io.lettuce.core.cluster.RedisClusterClient"
			+ ".newStatefulRedisClusterConnection(RedisChannelWriter, ClusterPushHandler, RedisCodec, Duration, "
			+ "Supplier) and the wrapper io.lettuce.core.cluster.ClusterCommand";

	private static final @Nullable String CLUSTER_CONNECTION_PROBLEM = checkClusterConnection();

	/** What {@link #scanArgs()} relies on. */
	static final String SCAN_ARGS = "io.lettuce.core.ScanArgs.build(CommandArgs) encoded by CommandArgs.encode(ByteBuf)";

	private static final @Nullable String SCAN_ARGS_PROBLEM;

	private static final InternalHandle<VarHandle> CHANNEL = InternalHandle.of("cannot read " + CHANNEL_FIELD,
			() -> MethodHandles.privateLookupIn(DefaultEndpoint.class, MethodHandles.lookup())
				.findVarHandle(DefaultEndpoint.class, "channel", Channel.class));

	private static final InternalHandle<VarHandle> LISTENER = InternalHandle.of("cannot read " + LISTENER_FIELD,
			() -> MethodHandles.privateLookupIn(CommandListenerWriter.class, MethodHandles.lookup())
				.findVarHandle(CommandListenerWriter.class, "listener", CommandListener.class));

	private static final @Nullable String ORDER_PROBLEM;

	private static final InternalHandle<MethodHandle> EVENT_ENDPOINT = InternalHandle
		.of("cannot call " + EVENT_ENDPOINT_ID, () -> {
			Class<?> support = Class.forName("io.lettuce.core.event.connection.ConnectionEventSupport", false,
					ConnectionEvent.class.getClassLoader());
			return MethodHandles.privateLookupIn(support, MethodHandles.lookup())
				.findVirtual(support, "getEpId", MethodType.methodType(String.class));
		});

	static {
		ORDER_PROBLEM = ClassUtils.isPresent("io.lettuce.core.OrderingReadFromAccessor",
				LettuceInternals.class.getClassLoader()) ? null : ORDER_ACCESSOR + " is missing";
		SCAN_ARGS_PROBLEM = checkScanArgs();
	}

	private static @Nullable String checkClusterConnection() {
		try {
			RedisClusterClient.class.getDeclaredMethod("newStatefulRedisClusterConnection", RedisChannelWriter.class,
					ClusterPushHandler.class, RedisCodec.class, Duration.class, Supplier.class);
			Class.forName("io.lettuce.core.cluster.ClusterCommand", false, RedisClusterClient.class.getClassLoader());
			return null;
		}
		catch (ReflectiveOperationException | RuntimeException | LinkageError ex) {
			return "cannot rely on " + CLUSTER_CONNECTION + ": " + ex;
		}
	}

	/**
	 * Describes how a command its caller cancelled is kept from being written later.
	 * @param client the factory's client, or {@code null} when it has none yet
	 * @return the fast path, active when the factory method Lettuce documents for
	 * subclasses and its command wrapper exist and the client is one that creates its
	 * connections through {@link #clusterConnection} (Slotwise's topology creates it)
	 */
	public static FastPath cancelledStayUnwritten(@Nullable AbstractRedisClient client) {
		String problem = CLUSTER_CONNECTION_PROBLEM;
		if (problem == null && client != null && !createsOwnClusterConnections(client.getClass())) {
			problem = "the cluster client is Lettuce's own (" + client.getClass().getName()
					+ "): Slotwise's topology (slotwise.topology) is off";
		}
		return new FastPath("lettuce-cancelled-stay-unwritten", CLUSTER_CONNECTION,
				"a command its caller cancelled (Spring Data Redis's timeout) while it was buffered for a reconnecting "
						+ "node may still be written when the node is back, as without Slotwise",
				problem);
	}

	private static boolean createsOwnClusterConnections(Class<?> type) {
		for (Class<?> candidate = type; candidate != null && candidate != RedisClusterClient.class
				&& candidate != Object.class; candidate = candidate.getSuperclass()) {
			try {
				candidate.getDeclaredMethod("newStatefulRedisClusterConnection", RedisChannelWriter.class,
						ClusterPushHandler.class, RedisCodec.class, Duration.class, Supplier.class);
				return true;
			}
			catch (NoSuchMethodException ex) {
				// Not this class: its superclass, up to Lettuce's own.
			}
		}
		return false;
	}

	/**
	 * Creates Lettuce's cluster connection, except that a command whose caller cancelled
	 * it is never written afterwards; for
	 * {@code RedisClusterClient.newStatefulRedisClusterConnection} overrides.
	 * @param <K> the key type
	 * @param <V> the value type
	 * @param writer the channel writer
	 * @param pushHandler the push handler
	 * @param codec the codec
	 * @param timeout the default timeout
	 * @param parser the JSON parser
	 * @return the connection
	 */
	public static <K, V> StatefulRedisClusterConnectionImpl<K, V> clusterConnection(RedisChannelWriter writer,
			ClusterPushHandler pushHandler, RedisCodec<K, V> codec, Duration timeout, Supplier<JsonParser> parser) {
		return new CancellationAwareClusterConnection<>(writer, pushHandler, codec, timeout, parser);
	}

	/**
	 * Reads known arguments back: a Lettuce that encodes them otherwise fails here, once,
	 * rather than on each call.
	 */
	private static @Nullable String checkScanArgs() {
		try {
			ScanOptions read = scanOptions(KeyScanArgs.Builder.type("hash").match("sw:*").limit(42));
			if (read != null && "sw:*".equals(read.getPattern()) && Long.valueOf(42).equals(read.getCount())
					&& read instanceof KeyScanOptions keyOptions && "hash".equals(keyOptions.getType())) {
				return null;
			}
			return "cannot read MATCH, COUNT and TYPE back from ScanArgs (read " + read + ")";
		}
		catch (RuntimeException | LinkageError ex) {
			return "cannot read ScanArgs: " + ex;
		}
	}

	private LettuceInternals() {
	}

	/**
	 * Describes the one-message write of a node batch.
	 * @return the fast path, active when the channel field was found
	 */
	public static FastPath batchWrite() {
		return new FastPath("lettuce-batch-write", CHANNEL_FIELD,
				"node batches are written command by command through Lettuce's endpoint", CHANNEL.problem());
	}

	/**
	 * Describes the one-message write of a node batch on a connection whose client has
	 * {@code CommandListener}s: the batch's commands are reported to them as Lettuce's
	 * {@link CommandListenerWriter} reports its own.
	 * @return the fast path, active when the listener field was found
	 */
	public static FastPath batchWriteListeners() {
		return new FastPath("lettuce-batch-write-listeners", LISTENER_FIELD,
				"with a CommandListener registered on the client, node batches are written command by command through "
						+ "Lettuce's writers (the listeners see every command, as without Slotwise)",
				LISTENER.problem());
	}

	/**
	 * Returns the listener a node connection's {@link CommandListenerWriter} notifies of
	 * each command it writes.
	 * @param writer the writer
	 * @return the listener (Lettuce's multicaster over the client's listeners), or
	 * {@code null} when it cannot be read: write through the writer then
	 */
	public static @Nullable CommandListener commandListener(CommandListenerWriter writer) {
		VarHandle handle = LISTENER.handle();
		return (handle != null) ? (CommandListener) handle.get(writer) : null;
	}

	/**
	 * Describes how cross-slot reads honour the order of a {@code ReadFrom} (e.g.
	 * {@code replicaPreferred}).
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
				EVENT_ENDPOINT.problem());
	}

	/**
	 * Describes how the reactive key walks read the arguments of a reactive {@code SCAN}.
	 * @return the fast path, active when known arguments were read back when this class
	 * loaded
	 */
	public static FastPath scanArgs() {
		return new FastPath("lettuce-scan-args", SCAN_ARGS,
				"reactive SCAN with arguments runs as Lettuce runs it, one node after another", SCAN_ARGS_PROBLEM);
	}

	/**
	 * Reads {@code MATCH}, {@code COUNT} and {@code TYPE} back from scan arguments (which
	 * keep them private) by encoding them as Lettuce would send them.
	 * @param scanArgs the arguments
	 * @return the options, or {@code null} when the arguments hold something else or
	 * cannot be read
	 */
	public static @Nullable ScanOptions scanOptions(ScanArgs scanArgs) {
		CommandArgs<byte[], byte[]> commandArgs = new CommandArgs<>(ByteArrayCodec.INSTANCE);
		scanArgs.build(commandArgs);
		ByteBuf buffer = Unpooled.buffer();
		try {
			commandArgs.encode(buffer);
			List<byte[]> words = new ArrayList<>();
			while (buffer.isReadable()) {
				if (buffer.readByte() != '$') {
					return null;
				}
				int length = Integer.parseInt(line(buffer));
				byte[] word = new byte[length];
				buffer.readBytes(word);
				buffer.skipBytes(2);
				words.add(word);
			}
			if (words.size() % 2 != 0) {
				return null;
			}
			ScanOptionsBuilder builder = ScanOptions.scanOptions();
			for (int i = 0; i < words.size(); i += 2) {
				String keyword = new String(words.get(i), StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT);
				byte[] value = words.get(i + 1);
				switch (keyword) {
					case "MATCH" -> builder.match(value);
					case "COUNT" -> builder.count(Long.parseLong(new String(value, StandardCharsets.US_ASCII)));
					case "TYPE" -> builder.type(DataType.fromCode(new String(value, StandardCharsets.US_ASCII)));
					default -> {
						return null;
					}
				}
			}
			return builder.build();
		}
		catch (RuntimeException ex) {
			// Arguments this reading does not know (a later Lettuce's): Lettuce runs the
			// call.
			return null;
		}
		finally {
			buffer.release();
		}
	}

	private static String line(ByteBuf buffer) {
		StringBuilder line = new StringBuilder();
		for (byte b = buffer.readByte(); b != '\r'; b = buffer.readByte()) {
			line.append((char) b);
		}
		buffer.skipBytes(1);
		return line.toString();
	}

	/**
	 * Returns the endpoint id a connection event is about, as {@code Endpoint.getId()}
	 * gives a connection's.
	 * @param event the event
	 * @return the id, or {@code null} when the event has none or it cannot be read
	 */
	public static @Nullable String endpointId(ConnectionEvent event) {
		MethodHandle handle = EVENT_ENDPOINT.handle();
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
	 * @return the active channel, or {@code null} when the writer is no
	 * {@link DefaultEndpoint}, the field cannot be read, or the channel is not active
	 * (reconnecting, closed): write through the endpoint then
	 */
	public static @Nullable Channel activeChannel(RedisChannelWriter writer) {
		VarHandle handle = CHANNEL.handle();
		if (handle == null || !(writer instanceof DefaultEndpoint endpoint)) {
			return null;
		}
		Channel channel = (Channel) handle.getVolatile(endpoint);
		return (channel != null && channel.isActive()) ? channel : null;
	}

	/**
	 * Returns whether a {@link ReadFrom} keeps its nodes' order (the first selected node
	 * is the one to use).
	 * @param readFrom the setting
	 * @return whether order matters; {@code false} when Lettuce cannot tell
	 */
	public static boolean isOrderSensitive(ReadFrom readFrom) {
		return ORDER_PROBLEM == null && OrderingReadFromAccessor.isOrderSensitive(readFrom);
	}

	/**
	 * Lettuce's cluster connection, except that a command whose caller gave up on it is
	 * never written afterwards.
	 * <p>
	 * Lettuce routes each command of a cluster connection inside a wrapper
	 * ({@code ClusterCommand}) that reports itself done only when it completed itself,
	 * not when the caller's command inside it did. Spring Data's synchronous calls wait
	 * through Lettuce's {@code awaitOrCancel}, which cancels the caller's command at the
	 * timeout; the wrapper's own timeout timer ({@code CommandExpiryWriter}) listens to
	 * that same command and is cancelled with it. A wrapper that was buffered on a node
	 * connection while its node was down (Lettuce buffers while it reconnects) therefore
	 * stays "not done" and is written when the connection comes back: the node answers
	 * {@code MOVED} and the wrapper follows it to the node that took over, applying a
	 * write the application saw fail, possibly over a newer acknowledged one (issue #21,
	 * measured in the chaos soak). Here the wrapper is completed as soon as the caller's
	 * command is cancelled, so Lettuce's endpoint drops it from its buffer and its
	 * command handler does not write it. A command already on the wire is not recalled
	 * (nothing can), and replies to it are discarded as for any cancelled command.
	 */
	private static final class CancellationAwareClusterConnection<K, V>
			extends StatefulRedisClusterConnectionImpl<K, V> {

		CancellationAwareClusterConnection(RedisChannelWriter writer, ClusterPushHandler pushHandler,
				RedisCodec<K, V> codec, Duration timeout, Supplier<JsonParser> parser) {
			super(writer, pushHandler, codec, timeout, parser);
		}

		@Override
		public <T> RedisCommand<K, V, T> dispatch(RedisCommand<K, V, T> command) {
			RedisCommand<K, V, T> sent = super.dispatch(command);
			if (sent != command && command instanceof CompleteableCommand<?> caller) {
				caller.onComplete((value, failure) -> {
					if (command.isCancelled() && !sent.isDone()) {
						sent.completeExceptionally(new CancellationException(
								"Cancelled by its caller (timed out or abandoned) before it was written"));
					}
				});
			}
			return sent;
		}

	}

}
