package dev.slotwise.internal.keyspace;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.springframework.dao.DataAccessException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;

/**
 * The cluster-wide scan as a {@link Flux} that honours back-pressure: keys are emitted only as the subscriber
 * requests them, and the walks stop reading nodes while {@link ScanSettings#readAhead()} keys wait unrequested.
 * Cancelling the subscription stops every walk. Nothing blocks: pages arrive from the client's I/O callbacks.
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
		Runnable drain = () -> {
			if (work.getAndIncrement() != 0) {
				return;
			}
			do {
				while (!sink.isCancelled() && sink.requestedFromDownstream() > 0) {
					byte[] key = scan.poll();
					if (key == null) {
						break;
					}
					sink.next(ByteBuffer.wrap(key));
				}
				DataAccessException failure = scan.failure();
				if (failure != null && terminated.compareAndSet(false, true)) {
					sink.error(failure);
				}
				else if (scan.isFinished() && terminated.compareAndSet(false, true)) {
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

}
