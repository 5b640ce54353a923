package dev.slotwise.internal.multikey;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.slotwise.internal.observed.Observed;
import org.jspecify.annotations.Nullable;

/**
 * Runs multi-key commands whose keys span slots: plans the keys into one
 * {@link SlotCommand} per slot (chunked), runs them as a {@link MultiKeyCall} — one
 * pipelined batch per node, the nodes in parallel, redirects followed for the affected
 * commands only — and reports each call to the {@link MultiKeyObserver}. Client specifics
 * live behind {@link NodeTransport}.
 */
public final class MultiKeyEngine {

	private final NodeTransport transport;

	private final MultiKeySettings settings;

	private final MultiKeyObserver observer;

	MultiKeyEngine(NodeTransport transport, MultiKeySettings settings) {
		this(transport, settings, MultiKeyObserver.NONE);
	}

	public MultiKeyEngine(NodeTransport transport, MultiKeySettings settings, MultiKeyObserver observer) {
		this.transport = transport;
		this.settings = settings;
		this.observer = observer;
	}

	MultiKeySettings settings() {
		return this.settings;
	}

	/**
	 * Reads keys that span slots.
	 * @param keys the keys, at least one
	 * @return the values in the caller's order, null for missing keys
	 */
	List<byte @Nullable []> mGet(byte[][] keys) {
		return run(MultiKeyCommand.MGET, keys, null, new ReplyAccumulator.Values(keys.length));
	}

	/**
	 * Writes keys that span slots, one {@code MSET} per slot.
	 * @param keys the keys
	 * @param values the values, one per key
	 */
	void mSet(byte[][] keys, byte[][] values) {
		run(MultiKeyCommand.MSET, keys, values, new ReplyAccumulator.Acknowledgements());
	}

	/**
	 * Runs a counting command ({@code DEL}, {@code UNLINK}, {@code EXISTS}) on keys that
	 * span slots.
	 * @param command the command
	 * @param keys the keys
	 * @return the sum of the per-slot replies
	 */
	long count(MultiKeyCommand command, byte[][] keys) {
		if (command.reply() != MultiKeyCommand.Reply.INTEGER) {
			throw new IllegalArgumentException("'command' must answer an integer, was " + command);
		}
		return run(command, keys, null, new ReplyAccumulator.Sum());
	}

	/**
	 * Like {@link #mGet(byte[][])}, without waiting: the future completes from the
	 * transport's callbacks.
	 * @param keys the keys, at least one
	 * @return the values to come; completes exceptionally with a
	 * {@link dev.slotwise.multikey.MultiKeyFailure}
	 */
	CompletableFuture<List<byte @Nullable []>> mGetAsync(byte[][] keys) {
		return start(MultiKeyCommand.MGET, keys, null, new ReplyAccumulator.Values(keys.length));
	}

	/**
	 * Like {@link #mSet(byte[][], byte[][])}, without waiting.
	 * @param keys the keys
	 * @param values the values, one per key
	 * @return completes when every slot's {@code MSET} was acknowledged
	 */
	CompletableFuture<Void> mSetAsync(byte[][] keys, byte[][] values) {
		return start(MultiKeyCommand.MSET, keys, values, new ReplyAccumulator.Acknowledgements());
	}

	/**
	 * Like {@link #count(MultiKeyCommand, byte[][])}, without waiting.
	 * @param command the command
	 * @param keys the keys
	 * @return the sum to come
	 */
	CompletableFuture<Long> countAsync(MultiKeyCommand command, byte[][] keys) {
		if (command.reply() != MultiKeyCommand.Reply.INTEGER) {
			throw new IllegalArgumentException("'command' must answer an integer, was " + command);
		}
		return start(command, keys, null, new ReplyAccumulator.Sum());
	}

	private <R> CompletableFuture<R> start(MultiKeyCommand command, byte[][] keys, byte @Nullable [][] values,
			ReplyAccumulator<R> replies) {
		long started = System.nanoTime();
		Observed observed = this.observer.start(command, keys.length);
		CompletableFuture<R> result;
		try {
			MultiKeyCall<R> call = new MultiKeyCall<>(this.transport, this.settings, this.observer, observed, command,
					keys, values, replies, started + this.settings.timeout().toNanos());
			result = call.start(SlotCommand.plan(command, keys, this.settings.maxKeysPerCommand()));
		}
		catch (RuntimeException ex) {
			this.observer.called(command, keys.length, false, System.nanoTime() - started);
			observed.end(Observed.FAILURE, ex);
			return CompletableFuture.failedFuture(ex);
		}
		result.whenComplete((value, failure) -> {
			this.observer.called(command, keys.length, failure == null, System.nanoTime() - started);
			observed.end((failure == null) ? Observed.SUCCESS : Observed.FAILURE, failure);
		});
		return result;
	}

	private <R> R run(MultiKeyCommand command, byte[][] keys, byte @Nullable [][] values, ReplyAccumulator<R> replies) {
		long started = System.nanoTime();
		Observed observed = this.observer.start(command, keys.length);
		Throwable failure = null;
		try (Observed.Scope scope = observed.open()) {
			MultiKeyCall<R> call = new MultiKeyCall<>(this.transport, this.settings, this.observer, observed, command,
					keys, values, replies, started + this.settings.timeout().toNanos());
			return call.run(SlotCommand.plan(command, keys, this.settings.maxKeysPerCommand()));
		}
		catch (RuntimeException | Error ex) {
			failure = ex;
			throw ex;
		}
		finally {
			this.observer.called(command, keys.length, failure == null, System.nanoTime() - started);
			observed.end((failure == null) ? Observed.SUCCESS : Observed.FAILURE, failure);
		}
	}

}
