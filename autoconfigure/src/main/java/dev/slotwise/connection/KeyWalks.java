package dev.slotwise.connection;

import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import dev.slotwise.internal.compat.LettuceInternals;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

import org.springframework.data.redis.core.ScanOptions;

/**
 * Answers the {@code SCAN} and {@code KEYS} calls of Lettuce's reactive cluster commands
 * from the cluster-wide key walks, the way Spring Data Redis makes them: its reactive
 * {@code scan(ScanOptions)} runs Lettuce's {@code ScanStream.scan(commands, scanArgs)},
 * which calls {@code scan(ScanArgs)} and then {@code scan(cursor, ScanArgs)} with each
 * cursor until one is finished; its {@code keys(pattern)} calls {@code keys(String)}.
 * <p>
 * {@code SCAN} is emulated with Lettuce's own cursor type: the first call starts a walk
 * and answers a {@link WalkCursor} carrying a page of keys and the walk; a call with that
 * cursor continues the same walk; the last page is finished. Back-pressure:
 * {@code ScanStream} asks for the next page as soon as it has a cursor (and up to 256
 * pages ahead of its consumer), so the next page is answered only once the consumer has
 * gone through the previous one (its keys iterated to the end), and only then are the
 * page's keys requested from the walk, whose nodes are read no further ahead than its
 * read-ahead. Nothing waits on a thread: pages complete from the walk's I/O callbacks or
 * from the consumer's own iteration.
 * <p>
 * Cancelling the stream cancels the page being awaited, which stops every node's walk. A
 * walk whose cursor is dropped without being continued or cancelled holds no thread and
 * no connection of its own (its nodes are read over the shared native connection, and
 * stop being read once the read-ahead is full): it is garbage collected with its cursor.
 * Cursors that are not the walk's ({@link ScanCursor#INITIAL} aside) and the
 * streaming-channel variants go to Lettuce unchanged.
 */
final class KeyWalks {

	/**
	 * Redis's default {@code COUNT} for {@code SCAN}, the page size when none is given.
	 */
	private static final int DEFAULT_COUNT = 10;

	private static final int MAX_PAGE = 10_000;

	private KeyWalks() {
	}

	/**
	 * Answers a reactive command from the key walks.
	 * @param keyspace the key walks
	 * @param method the method of Lettuce's reactive cluster commands called
	 * @param args its arguments
	 * @return the command's publisher, or {@code null} to leave the call to Lettuce
	 */
	static @Nullable Object invoke(ReactiveKeyspace keyspace, Method method, @Nullable Object[] args) {
		String name = method.getName();
		int count = (args != null) ? args.length : 0;
		if (name.equals("keys") && count == 1 && args[0] instanceof String pattern) {
			// Lettuce encodes a String pattern as UTF-8, as Spring Data Redis decoded it.
			return keys(keyspace, ByteBuffer.wrap(pattern.getBytes(StandardCharsets.UTF_8)));
		}
		if (name.equals("keysLegacy") && count == 1 && args[0] instanceof ByteBuffer pattern) {
			return keys(keyspace, pattern);
		}
		if (!name.equals("scan") || (count > 0 && !(args[0] instanceof ScanCursor) && !(args[0] instanceof ScanArgs))) {
			return null;
		}
		ScanCursor cursor = (count > 0 && args[0] instanceof ScanCursor given) ? given : null;
		ScanArgs scanArgs = (count > 0 && args[count - 1] instanceof ScanArgs given) ? given : null;
		if (cursor instanceof WalkCursor walked) {
			Walk walk = walked.walk;
			return (walk == null || walked.isFinished()) ? Mono.just(new WalkCursor(null, List.of(), true))
					: walk.nextPage();
		}
		if (cursor != null && cursor != ScanCursor.INITIAL) {
			return null;
		}
		ScanOptions options = (scanArgs != null) ? options(scanArgs) : ScanOptions.NONE;
		if (options == null) {
			return null;
		}
		Long limit = options.getCount();
		int pageSize = (limit != null) ? (int) Math.max(1, Math.min(MAX_PAGE, limit)) : DEFAULT_COUNT;
		// Started at the call, not deferred: the key walks tell a cache clear's scan from
		// the caller's stack.
		return new Walk(keyspace.scan(options), pageSize).nextPage();
	}

	private static Flux<ByteBuffer> keys(ReactiveKeyspace keyspace, ByteBuffer pattern) {
		// Called at the call, not deferred: the key walks decide from the caller's stack
		// whether a cache clear calls.
		return keyspace.keys(pattern).flatMapIterable(Function.identity());
	}

	/**
	 * Reads {@code MATCH}, {@code COUNT} and {@code TYPE} back from scan arguments, which
	 * keep them private ({@link LettuceInternals#scanOptions(ScanArgs)}).
	 * @return the options, or {@code null} when they cannot be read: Lettuce runs the
	 * call then
	 */
	static @Nullable ScanOptions options(ScanArgs scanArgs) {
		return LettuceInternals.scanArgs().active() ? LettuceInternals.scanOptions(scanArgs) : null;
	}

	/**
	 * One cluster-wide walk, handed out a page at a time: keys are requested from the
	 * walk only for the page being awaited, and only once the consumer went through the
	 * previous page.
	 */
	static final class Walk extends BaseSubscriber<ByteBuffer> {

		private final Flux<ByteBuffer> keys;

		private final int pageSize;

		private List<ByteBuffer> page = new ArrayList<>();

		private @Nullable MonoSink<KeyScanCursor<ByteBuffer>> waiting;

		private boolean subscribed;

		private boolean requested;

		private boolean previousConsumed = true;

		private boolean completed;

		private @Nullable Throwable failure;

		Walk(Flux<ByteBuffer> keys, int pageSize) {
			this.keys = keys;
			this.pageSize = pageSize;
		}

		Mono<KeyScanCursor<ByteBuffer>> nextPage() {
			return Mono.create((sink) -> {
				boolean subscribe;
				synchronized (this) {
					if (this.waiting != null) {
						sink.error(new IllegalStateException("A page of this SCAN is awaited already: continue a "
								+ "cluster-wide scan from one cursor at a time"));
						return;
					}
					this.waiting = sink;
					subscribe = !this.subscribed;
					this.subscribed = true;
				}
				// Cancelling the awaited page (the stream is cancelled) stops every
				// node's walk.
				sink.onCancel(this::dispose);
				if (subscribe) {
					this.keys.subscribe(this);
				}
				pump();
			});
		}

		@Override
		protected void hookOnSubscribe(Subscription subscription) {
			// Nothing requested before a page is awaited.
		}

		@Override
		protected void hookOnNext(ByteBuffer key) {
			synchronized (this) {
				this.page.add(key);
				if (this.page.size() >= this.pageSize) {
					this.requested = false;
				}
			}
			pump();
		}

		@Override
		protected void hookOnComplete() {
			synchronized (this) {
				this.completed = true;
			}
			pump();
		}

		@Override
		protected void hookOnError(Throwable failure) {
			synchronized (this) {
				this.failure = failure;
			}
			pump();
		}

		private void consumed() {
			synchronized (this) {
				this.previousConsumed = true;
			}
			pump();
		}

		/**
		 * Answers the awaited page when it is full or the walk ended, or requests its
		 * keys when the previous page was consumed. Answers and requests outside the
		 * lock: a request may deliver keys at once, on this thread.
		 */
		private void pump() {
			for (;;) {
				MonoSink<KeyScanCursor<ByteBuffer>> sink;
				WalkCursor cursor = null;
				Throwable error = null;
				long request = 0;
				synchronized (this) {
					sink = this.waiting;
					if (sink == null || !this.subscribed) {
						return;
					}
					if (this.failure != null) {
						error = this.failure;
						this.waiting = null;
					}
					else if (this.completed || this.page.size() >= this.pageSize) {
						List<ByteBuffer> keys = this.page;
						this.page = new ArrayList<>();
						this.previousConsumed = keys.isEmpty();
						this.waiting = null;
						cursor = new WalkCursor(this, keys, this.completed);
					}
					else if (this.previousConsumed && !this.requested && upstream() != null) {
						this.requested = true;
						request = this.pageSize - this.page.size();
					}
					else {
						return;
					}
				}
				if (error != null) {
					sink.error(error);
					return;
				}
				if (cursor != null) {
					sink.success(cursor);
					return;
				}
				request(request);
			}
		}

	}

	/**
	 * Lettuce's key cursor, carrying a page of a walk and the walk, so that a call with
	 * it continues the walk.
	 */
	static final class WalkCursor extends KeyScanCursor<ByteBuffer> {

		private final @Nullable Walk walk;

		private final List<ByteBuffer> keys;

		WalkCursor(@Nullable Walk walk, List<ByteBuffer> keys, boolean finished) {
			this.walk = walk;
			// An empty page needs no consuming: the walk counts it consumed already.
			this.keys = new Page(keys, (walk != null && !finished && !keys.isEmpty()) ? walk::consumed : () -> {
			});
			// An opaque, non-zero cursor: the walk, not the number, says where the scan
			// is.
			setCursor(finished ? "0" : "slotwise-walk");
			setFinished(finished);
		}

		@Override
		public List<ByteBuffer> getKeys() {
			return this.keys;
		}

	}

	/**
	 * A page's keys, telling the walk once the consumer went through them to the end
	 * (iterator, spliterator, or the last index).
	 */
	private static final class Page extends AbstractList<ByteBuffer> {

		private final List<ByteBuffer> keys;

		private final Runnable consumed;

		private final AtomicBoolean told = new AtomicBoolean();

		Page(List<ByteBuffer> keys, Runnable consumed) {
			this.keys = keys;
			this.consumed = consumed;
		}

		@Override
		public ByteBuffer get(int index) {
			ByteBuffer key = this.keys.get(index);
			if (index == this.keys.size() - 1) {
				tell();
			}
			return key;
		}

		@Override
		public int size() {
			return this.keys.size();
		}

		@Override
		public Iterator<ByteBuffer> iterator() {
			Iterator<ByteBuffer> iterator = this.keys.iterator();
			return new Iterator<>() {

				@Override
				public boolean hasNext() {
					boolean next = iterator.hasNext();
					if (!next) {
						tell();
					}
					return next;
				}

				@Override
				public ByteBuffer next() {
					if (!iterator.hasNext()) {
						throw new NoSuchElementException();
					}
					return iterator.next();
				}

			};
		}

		@Override
		public Spliterator<ByteBuffer> spliterator() {
			// Through iterator(), so that reaching the end tells the walk.
			return Spliterators.spliterator(this, Spliterator.ORDERED | Spliterator.SIZED);
		}

		private void tell() {
			if (this.told.compareAndSet(false, true)) {
				this.consumed.run();
			}
		}

	}

}
