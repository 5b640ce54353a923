package dev.slotwise.internal.multikey;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.slotwise.connection.ReactiveMultiKeyRouter;
import dev.slotwise.internal.routing.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * Runs reactive cross-slot multi-key calls on the engine's asynchronous core, over the
 * same node connections, {@code ReadFrom}, redirect handling and timeout as the
 * imperative path: each {@link Mono} subscribes by starting the call and completes from
 * Lettuce's I/O callbacks (or the engine's deadline timer); no thread waits. Cancelling
 * the subscription cancels the call's node batches.
 */
public final class LettuceReactiveMultiKey implements ReactiveMultiKeyRouter {

	private final Supplier<StatefulRedisClusterConnection<byte[], byte[]>> connection;

	private final EngineHolder<StatefulRedisClusterConnection<byte[], byte[]>, MultiKeyEngine> engine;

	/**
	 * @param connection supplies the native cluster connection the calls run over: the
	 * factory's shared one (the one the imperative path uses), or one of the factory's
	 * own when connection sharing is off
	 * @param engines creates an engine over a connection
	 */
	public LettuceReactiveMultiKey(Supplier<StatefulRedisClusterConnection<byte[], byte[]>> connection,
			Function<StatefulRedisClusterConnection<byte[], byte[]>, MultiKeyEngine> engines) {
		this.connection = connection;
		this.engine = new EngineHolder<>(engines);
	}

	@Override
	public boolean routes(List<ByteBuffer> keys) {
		int slot = -1;
		for (ByteBuffer key : keys) {
			if (key == null) {
				// Spring Data Redis names the problem in its own words.
				return false;
			}
			int keySlot = SlotHash.slot(bytes(key));
			if (slot != -1 && keySlot != slot) {
				return true;
			}
			slot = keySlot;
		}
		return false;
	}

	@Override
	public Mono<List<@Nullable ByteBuffer>> mGet(List<ByteBuffer> keys) {
		byte[][] raw = toArray(keys);
		return Mono.fromFuture(() -> engine().mGetAsync(raw)).map((values) -> {
			List<@Nullable ByteBuffer> buffers = new ArrayList<>(values.size());
			for (byte[] value : values) {
				buffers.add((value != null) ? ByteBuffer.wrap(value) : null);
			}
			return buffers;
		});
	}

	@Override
	public Mono<Void> mSet(Map<ByteBuffer, ByteBuffer> tuples) {
		byte[][] keys = new byte[tuples.size()][];
		byte[][] values = new byte[tuples.size()][];
		int i = 0;
		for (Map.Entry<ByteBuffer, ByteBuffer> tuple : tuples.entrySet()) {
			if (tuple.getKey() == null || tuple.getValue() == null) {
				return Mono.error(new IllegalArgumentException("'tuples' must not contain null keys or values"));
			}
			keys[i] = bytes(tuple.getKey());
			values[i++] = bytes(tuple.getValue());
		}
		return Mono.fromFuture(() -> engine().mSetAsync(keys, values));
	}

	@Override
	public Mono<Long> remove(List<ByteBuffer> keys, boolean unlink) {
		byte[][] raw = toArray(keys);
		MultiKeyCommand command = unlink ? MultiKeyCommand.UNLINK : MultiKeyCommand.DEL;
		return Mono.fromFuture(() -> engine().countAsync(command, raw));
	}

	@Override
	public Mono<Long> exists(List<ByteBuffer> keys) {
		byte[][] raw = toArray(keys);
		return Mono.fromFuture(() -> engine().countAsync(MultiKeyCommand.EXISTS, raw));
	}

	/**
	 * The engine over the factory's current native connection, created again when the
	 * factory restarted.
	 */
	private MultiKeyEngine engine() {
		return this.engine.get(this.connection.get());
	}

	private static byte[][] toArray(List<ByteBuffer> keys) {
		byte[][] raw = new byte[keys.size()][];
		for (int i = 0; i < raw.length; i++) {
			raw[i] = bytes(keys.get(i));
		}
		return raw;
	}

	/**
	 * Copies a buffer's remaining bytes, leaving the caller's buffer as it was.
	 */
	private static byte[] bytes(ByteBuffer buffer) {
		ByteBuffer view = buffer.duplicate();
		byte[] bytes = new byte[view.remaining()];
		view.get(bytes);
		return bytes;
	}

}
