package dev.slotwise.internal.keyspace;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;

import org.springframework.dao.DataAccessException;

/**
 * The cluster-wide scan as a {@link Flux} that honours back-pressure: keys are emitted
 * only as the subscriber requests them, and the walks stop reading nodes while
 * {@link ScanSettings#readAhead()} keys wait unrequested. Cancelling the subscription
 * stops every walk. Nothing blocks: pages arrive from the client's I/O callbacks.
 */
public final class ReactiveClusterScan {

	private final Supplier<ClusterScan> scans;

	ReactiveClusterScan(Supplier<ClusterScan> scans) {
		this.scans = scans;
	}

	/**
	 * Returns the keys; each subscription runs a scan of its own.
	 * @return the keys, each at least once
	 */
	public Flux<ByteBuffer> scan() {
		return Flux.create(this::emit);
	}

	private void emit(FluxSink<ByteBuffer> sink) {
		ClusterScan scan = this.scans.get();
		AtomicInteger work = new AtomicInteger();
		AtomicBoolean terminated = new AtomicBoolean();
		// The page being emitted; touched only inside the drain loop, which one thread
		// runs at a time.
		Pending pending = new Pending();
		Runnable drain = () -> {
			if (work.getAndIncrement() != 0) {
				return;
			}
			do {
				while (!sink.isCancelled() && sink.requestedFromDownstream() > 0) {
					if (pending.page == null || pending.index == pending.page.size()) {
						pending.page = scan.pollPage();
						pending.index = 0;
						if (pending.page == null) {
							break;
						}
					}
					sink.next(ByteBuffer.wrap(pending.page.get(pending.index++)));
				}
				boolean emptied = pending.page == null || pending.index == pending.page.size();
				DataAccessException failure = scan.failure();
				if (failure != null && terminated.compareAndSet(false, true)) {
					sink.error(failure);
				}
				else if (emptied && scan.isFinished() && terminated.compareAndSet(false, true)) {
					sink.complete();
				}
			}
			while (work.decrementAndGet() != 0);
		};
		scan.onSignal(drain);
		sink.onRequest((requested) -> drain.run());
		sink.onDispose(scan::close);
		scan.start();
	}

	private static final class Pending {

		private @Nullable List<byte[]> page;

		private int index;

	}

}
