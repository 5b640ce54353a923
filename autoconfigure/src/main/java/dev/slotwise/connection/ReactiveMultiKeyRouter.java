package dev.slotwise.connection;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * Runs the cross-slot multi-key calls of a {@link SlotwiseLettuceConnectionFactory}'s
 * reactive connections without blocking: each returned {@link Mono} completes from I/O
 * callbacks, and cancelling it cancels the call's node batches.
 *
 * @see SlotwiseLettuceConnectionFactory#setReactiveMultiKeyRouter(ReactiveMultiKeyRouter)
 */
public interface ReactiveMultiKeyRouter {

	/**
	 * Returns whether the keys span slots, so that the router (not Lettuce) must run the
	 * call.
	 * @param keys the keys, not empty
	 * @return whether they span slots
	 */
	boolean routes(List<ByteBuffer> keys);

	/**
	 * Reads keys that span slots.
	 * @param keys the keys
	 * @return the values in the keys' order, {@code null} for missing keys
	 */
	Mono<List<@Nullable ByteBuffer>> mGet(List<ByteBuffer> keys);

	/**
	 * Writes keys that span slots (atomic per slot only).
	 * @param tuples the keys and values
	 * @return completes when every slot acknowledged
	 */
	Mono<Void> mSet(Map<ByteBuffer, ByteBuffer> tuples);

	/**
	 * Removes keys that span slots.
	 * @param keys the keys
	 * @param unlink whether to {@code UNLINK} rather than {@code DEL}
	 * @return the number of keys removed
	 */
	Mono<Long> remove(List<ByteBuffer> keys, boolean unlink);

	/**
	 * Counts existing keys that span slots, each repetition counted.
	 * @param keys the keys
	 * @return the count
	 */
	Mono<Long> exists(List<ByteBuffer> keys);

}
