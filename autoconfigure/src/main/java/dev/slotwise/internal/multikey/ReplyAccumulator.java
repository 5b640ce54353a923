package dev.slotwise.internal.multikey;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * Gathers the per-slot replies of one multi-key call into its result. Replies arrive from
 * several threads at once, each for its own positions, so implementations write only
 * their own positions or use atomics.
 *
 * @param <R> the call's result
 */
sealed interface ReplyAccumulator<R> {

	/**
	 * Takes the successful reply of one command.
	 * @param command the command that was answered
	 * @param positions the positions in the caller's key array of the keys the command
	 * carried
	 * @param reply the decoded reply, as {@link NodeTransport#send} documents
	 * @throws IllegalStateException when the reply does not have the expected shape
	 */
	void accept(MultiKeyCommand command, int[] positions, @Nullable Object reply);

	/**
	 * Returns the result once every command was answered.
	 * @return the result
	 */
	R result();

	/**
	 * {@code MGET}: values written to their positions in the caller's order.
	 */
	final class Values implements ReplyAccumulator<List<byte @Nullable []>> {

		private final byte @Nullable [][] values;

		Values(int keyCount) {
			this.values = new byte[keyCount][];
		}

		@Override
		public void accept(MultiKeyCommand command, int[] positions, @Nullable Object reply) {
			if (!(reply instanceof List<?> replies) || replies.size() != positions.length) {
				throw new IllegalStateException(command + " of " + positions.length + " keys answered " + reply);
			}
			for (int i = 0; i < positions.length; i++) {
				this.values[positions[i]] = (byte[]) replies.get(i);
			}
		}

		@Override
		public List<byte @Nullable []> result() {
			return Arrays.asList(this.values);
		}

	}

	/**
	 * {@code MSET}: every slot must answer {@code OK}.
	 */
	final class Acknowledgements implements ReplyAccumulator<Void> {

		@Override
		public void accept(MultiKeyCommand command, int[] positions, @Nullable Object reply) {
			if (!"OK".equals(reply)) {
				throw new IllegalStateException(command + " answered " + reply);
			}
		}

		@Override
		public @Nullable Void result() {
			return null;
		}

	}

	/**
	 * {@code DEL}, {@code UNLINK}, {@code EXISTS}: the per-slot counts summed.
	 */
	final class Sum implements ReplyAccumulator<Long> {

		private final AtomicLong sum = new AtomicLong();

		@Override
		public void accept(MultiKeyCommand command, int[] positions, @Nullable Object reply) {
			if (!(reply instanceof Long count)) {
				throw new IllegalStateException(command + " answered " + reply);
			}
			this.sum.addAndGet(count);
		}

		@Override
		public Long result() {
			return this.sum.get();
		}

	}

}
